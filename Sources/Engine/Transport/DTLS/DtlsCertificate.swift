import COpenSSL
import OpenSSLSupport

/// A self-signed ECDSA P-256 certificate, generated per connection as browsers do; its SHA-256 fingerprint goes
/// into `a=fingerprint` (RFC 8122 §5), which is all the peer needs to authenticate it (RFC 5763 §5).
public final class DtlsCertificate {
    let certificate: SelfSignedCertificate
    public let fingerprint: DtlsFingerprint
    var key: OpaquePointer { certificate.key }
    var x509: OpaquePointer { certificate.x509 }

    public init(commonName: String = "conftui") throws {
        do {
            // Browsers backdate a day so peers with skewed clocks accept it; a month of validity covers any call.
            certificate = try SelfSignedCertificate(commonName: commonName, validFrom: 86_400, validFor: 30 * 86_400)
        } catch {
            throw Self.engineError(error)
        }
        fingerprint = try Self.sha256Fingerprint(of: certificate.x509)
    }

    /// The subject's common name as the certificate carries it (what a peer reading it sees).
    var subjectCommonName: String? {
        var buffer = [CChar](repeating: 0, count: 256)
        let n = X509_NAME_get_text_by_NID(X509_get_subject_name(x509), NID_commonName, &buffer, Int32(buffer.count))
        guard n >= 0 else { return nil }
        return String(decoding: buffer.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func sha256Fingerprint(of x509: OpaquePointer) throws -> DtlsFingerprint {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(x509, EVP_sha256(), &digest, &length) == 1 else { throw failure("X509_digest") }
        return DtlsFingerprint(algorithm: "sha-256", bytes: Array(digest.prefix(Int(length))))
    }

    /// `call` failed: the error the queue holds for it (drained).
    static func failure(_ call: String) -> EngineError { engineError(OpenSSLFailure(call: call)) }

    private static func engineError(_ failure: OpenSSLFailure) -> EngineError {
        .library(name: "OpenSSL", call: failure.call, code: Int32(truncatingIfNeeded: failure.code))
    }
}
