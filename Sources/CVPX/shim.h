/* libvpx: the init functions are macros that Swift cannot import; wrap them. */
#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>
static inline vpx_codec_err_t cvpx_enc_init(vpx_codec_ctx_t *c, vpx_codec_iface_t *i,
    const vpx_codec_enc_cfg_t *cfg, vpx_codec_flags_t f) { return vpx_codec_enc_init(c, i, cfg, f); }
static inline vpx_codec_err_t cvpx_dec_init(vpx_codec_ctx_t *c, vpx_codec_iface_t *i,
    const vpx_codec_dec_cfg_t *cfg, vpx_codec_flags_t f) { return vpx_codec_dec_init(c, i, cfg, f); }
