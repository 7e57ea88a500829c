/* OpenSSL: wrappers for the macros Swift cannot import (docs/toolchain-pitfalls.md §1). */
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/bio.h>
#include <openssl/rand.h>
#include <openssl/hmac.h>
static inline long cdtls_set_link_mtu(SSL *s, long m) { return DTLS_set_link_mtu(s, m); }
static inline long cdtls_get_timeout(SSL *s, struct timeval *tv) { return DTLSv1_get_timeout(s, tv); }
static inline long cdtls_handle_timeout(SSL *s) { return DTLSv1_handle_timeout(s); }
static inline long cbio_set_mem_eof_return(BIO *b, long v) { return BIO_set_mem_eof_return(b, v); }
static inline long cssl_ctx_set_min_proto_version(SSL_CTX *c, int v) { return SSL_CTX_set_min_proto_version(c, v); }
static inline long cssl_ctx_set_max_proto_version(SSL_CTX *c, int v) { return SSL_CTX_set_max_proto_version(c, v); }
static inline long cssl_ctx_set_mode(SSL_CTX *c, long m) { return SSL_CTX_set_mode(c, m); }
static inline long cssl_ctx_set_read_ahead(SSL_CTX *c, int v) { return SSL_CTX_set_read_ahead(c, v); }
static inline EVP_PKEY *cssl_gen_ec_key(const char *curve) { return EVP_EC_gen(curve); }
static inline void copenssl_free(void *p) { OPENSSL_free(p); }
static const uint64_t CSSL_OP_NO_QUERY_MTU = SSL_OP_NO_QUERY_MTU;
/* SNI on a client SSL (SSL_set_tlsext_host_name is a macro over SSL_ctrl). */
static inline long cssl_set_tlsext_host_name(SSL *s, const char *name) { return SSL_set_tlsext_host_name(s, name); }
