#if canImport(Glibc)
import Glibc
#endif

/// The name you appear under when `--name` is not given: your login name, so the others (browsers
/// included) see a person rather than a bare socketId.
enum LoginName {
    /// `--name` if given, else the login name from the terminal session, `USER`, or the password
    /// database, in that order; nil only when none of them has one.
    static func displayName(_ given: String?, environment: [String: String] = environmentVariables()) -> String? {
        if let given { return given }
        var buffer = [CChar](repeating: 0, count: 256)
        if getlogin_r(&buffer, buffer.count) == 0, buffer[0] != 0 {
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        if let user = environment["USER"], !user.isEmpty { return user }
        if let pw = getpwuid(getuid()), let n = pw.pointee.pw_name, n.pointee != 0 { return String(cString: n) }
        return nil
    }
}
