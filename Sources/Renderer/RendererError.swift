/// The one error type of the Renderer module.
public enum RendererError: Error, Equatable, CustomStringConvertible {
    /// A frame's planes are smaller than its declared size and strides.
    case invalidFrame(String)

    public var description: String {
        switch self {
        case .invalidFrame(let r): return "invalid frame: \(r)"
        }
    }
}
