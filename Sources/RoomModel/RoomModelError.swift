/// The one error type of the RoomModel module. The reducer itself never throws (unknown or
/// duplicate events are ignored and reported in the result); this covers invalid inputs to helpers.
public enum RoomModelError: Error, Equatable, CustomStringConvertible {
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .invalidArgument(let r): return "invalid argument: \(r)"
        }
    }
}
