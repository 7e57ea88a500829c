// The one monotonic clock and `Duration.seconds`, from OpenSSLSupport (the target below both Engine and Signaling),
// re-exported: every Engine layer, and whoever imports Engine, sees them without naming OpenSSLSupport. Only the
// clock itself is re-exported, not the certificate and OpenSSL-error helpers beside it.
@_exported import enum OpenSSLSupport.MonotonicClock
