/// Where a picture goes inside a tile: the largest area with the picture's aspect ratio that fits
/// the tile's pixels (one cell is two half-block pixels tall, and cells are about twice as tall as
/// wide, so half-block pixels are close to square), centred, the rest black.
public struct Letterbox: Hashable, Sendable {
    public let x: Int
    public let y: Int
    public let width: Int
    public let height: Int

    public init(sourceWidth sw: Int, sourceHeight sh: Int, areaWidth aw: Int, areaHeight ah: Int) {
        precondition(sw > 0 && sh > 0 && aw > 0 && ah > 0)
        var w = aw
        var h = (aw * sh * 2 + sw) / (2 * sw)          // aw*sh/sw, rounded
        if h > ah {
            h = ah
            w = min(aw, (ah * sw * 2 + sh) / (2 * sh))
        }
        w = max(1, w); h = max(1, h)
        width = w; height = h
        x = (aw - w) / 2; y = (ah - h) / 2
    }
}
