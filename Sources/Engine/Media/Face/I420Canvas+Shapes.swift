/// Filled ellipses and rectangles on an `I420Canvas`, each kept inside a clip rectangle: the face's eyes and mouth
/// are redrawn every frame inside their boxes, and nothing drawn there may touch a pixel outside (chroma included).
/// A pixel belongs to a shape when its centre does; a chroma sample when the centre of its 2x2 block does.
extension I420Canvas {
    mutating func fill(_ e: Ellipse, _ colour: RGB, clip: PixelRect? = nil) {
        guard e.rx > 0, e.ry > 0, e.cx.isFinite, e.cy.isFinite, e.rx.isFinite, e.ry.isFinite else { return }
        let area = (clip ?? .whole(width, height)).intersection(.whole(width, height))
        let (yv, uv, vv) = colour.yuv
        func inside(_ x: Double, _ y: Double) -> Bool {
            let dx = (x - e.cx) / e.rx, dy = (y - e.cy) / e.ry
            return dx * dx + dy * dy < 1
        }
        let top = max(area.y0, Int((e.cy - e.ry).rounded(.down)) - 1)
        let bottom = min(area.y1, Int((e.cy + e.ry).rounded(.up)) + 1)
        let left = max(area.x0, Int((e.cx - e.rx).rounded(.down)) - 1)
        let right = min(area.x1, Int((e.cx + e.rx).rounded(.up)) + 1)
        guard top < bottom, left < right else { return }
        for row in top..<bottom {
            for col in left..<right where inside(Double(col) + 0.5, Double(row) + 0.5) { y[row * width + col] = yv }
        }
        let cw = width / 2
        for row in (top / 2)..<((bottom + 1) / 2) where row * 2 >= area.y0 && row * 2 + 2 <= area.y1 && row < height / 2 {
            for col in (left / 2)..<((right + 1) / 2) where col * 2 >= area.x0 && col * 2 + 2 <= area.x1 && col < cw {
                if inside(Double(col * 2) + 1, Double(row * 2) + 1) { u[row * cw + col] = uv; v[row * cw + col] = vv }
            }
        }
    }

    mutating func fill(_ r: PixelRect, _ colour: RGB, clip: PixelRect? = nil) {
        let a = r.intersection((clip ?? .whole(width, height)).intersection(.whole(width, height)))
        guard a.x0 < a.x1, a.y0 < a.y1 else { return }
        fill(x: a.x0, y: a.y0, w: a.x1 - a.x0, h: a.y1 - a.y0, yuv: colour.yuv)
    }
}
