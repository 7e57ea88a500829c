/* ALSA: silence its error printer, or "ALSA lib ... cannot find card" lands on the curses screen. */
#include <alsa/asoundlib.h>
static void calsa_quiet_handler(const char *f, int l, const char *fn, int e, const char *fmt, ...) {
    (void)f; (void)l; (void)fn; (void)e; (void)fmt;
}
static inline void calsa_silence_errors(void) { snd_lib_error_set_handler(calsa_quiet_handler); }
