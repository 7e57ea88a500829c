/* libsrtp2: imports as is; the aes_cm_128_hmac_sha1_80 setter is a macro alias, use *_rtp_default. */
#include <srtp2/srtp.h>
