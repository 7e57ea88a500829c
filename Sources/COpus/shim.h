/* libopus: the *_ctl functions are variadic, which Swift cannot call; give them fixed signatures. */
#include <opus.h>
static inline int copus_enc_set(OpusEncoder *e, int req, opus_int32 v) { return opus_encoder_ctl(e, req, v); }
static inline int copus_enc_get(OpusEncoder *e, int req, opus_int32 *v) { return opus_encoder_ctl(e, req, v); }
static inline int copus_dec_set(OpusDecoder *d, int req, opus_int32 v) { return opus_decoder_ctl(d, req, v); }
static inline int copus_dec_get(OpusDecoder *d, int req, opus_int32 *v) { return opus_decoder_ctl(d, req, v); }
