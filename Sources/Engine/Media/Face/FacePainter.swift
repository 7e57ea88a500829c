/// Draws a `FaceSource` picture on the 320x240 design grid (`FaceGrid`): once, everything that never moves
/// (background, shoulders, hair, head, brows, nose, the name band); then, per state, the eyes inside `eyeBox` and the
/// mouth inside `mouthBox`. Both boxes lie on bare skin in the still picture, so redrawing a feature is copying the
/// still planes and painting that box: nothing outside it can change.
enum FacePainter {
    /// Eye centres and sizes (design pixels).
    static let eyeXs = [138.0, 182.0], eyeY = 66.0
    static let mouthX = 160.0, mouthY = 112.0

    /// Everything that never moves.
    static func drawStill(_ look: FaceLook, name: String?, on canvas: inout I420Canvas) {
        let g = FaceGrid(width: canvas.width, height: canvas.height)
        canvas.fill(.whole(canvas.width, canvas.height), look.background)
        drawHairBehind(look, g, on: &canvas)
        canvas.fill(g.ellipse(160, 224, 120, 86), look.shirt)                       // shoulders
        canvas.fill(g.rect(142, 128, 178, 156), look.shade)                          // neck
        canvas.fill(g.ellipse(107, 82, 7, 12), look.shade)                           // ears
        canvas.fill(g.ellipse(213, 82, 7, 12), look.shade)
        canvas.fill(g.ellipse(160, 82, 52, 66), look.skin)                           // head
        drawHairInFront(look, g, on: &canvas)
        for x in eyeXs { canvas.fill(g.rect(x - 12, 45, x + 12, 50), look.brows) }  // brows
        canvas.fill(g.ellipse(160, 87, 5, 7), look.shade)                            // nose
        if let name, !name.isEmpty { drawName(name, on: &canvas) }
    }

    private static func drawHairBehind(_ look: FaceLook, _ g: FaceGrid, on canvas: inout I420Canvas) {
        switch look.hairStyle {
        case .long: canvas.fill(g.ellipse(160, 100, 70, 88), look.hair, clip: g.rect(0, 0, 320, 166))
        case .curly: canvas.fill(g.ellipse(160, 66, 82, 64), look.hair)
        case .bob: canvas.fill(g.ellipse(160, 80, 66, 62), look.hair, clip: g.rect(0, 0, 320, 124))
        case .bun: canvas.fill(g.ellipse(160, 14, 20, 15), look.hair)
        case .short, .buzz: break
        }
    }

    /// The hair over the forehead: always above the brows (y < 45), so it never reaches the eye box.
    private static func drawHairInFront(_ look: FaceLook, _ g: FaceGrid, on canvas: inout I420Canvas) {
        let above = g.rect(0, 0, 320, look.hairStyle == .buzz ? 30 : 44)
        canvas.fill(g.ellipse(160, look.hairStyle == .buzz ? 60 : 50, 56, 42), look.hair, clip: above)
        if look.hairStyle == .short || look.hairStyle == .curly {
            canvas.fill(g.ellipse(110, 56, 6, 16), look.hair)                          // sideburns, left of the eyes
            canvas.fill(g.ellipse(210, 56, 6, 16), look.hair)
        }
    }

    /// The name in white, as large as fits, in a dark band: legible on any background, at terminal-tile size.
    private static func drawName(_ name: String, on canvas: inout I420Canvas) {
        let band = FaceSource.nameBand.pixels(width: canvas.width, height: canvas.height)
        canvas.fill(PixelRect(band), RGB(22, 24, 32))
        let layout = FaceSource.nameLayout(name, width: canvas.width, height: canvas.height)
        PixelFont.draw(layout.text, on: &canvas, x: layout.x, y: layout.y, scaleX: layout.scaleX, scaleY: layout.scaleY,
                       yuv: (235, 128, 128))
    }

    /// Open eyes (white, iris, pupil) or, mid-blink, the lids' lash lines; inside `clip` (the eye box).
    static func drawEyes(open: Bool, _ look: FaceLook, on canvas: inout I420Canvas, clip: PixelRect) {
        let g = FaceGrid(width: canvas.width, height: canvas.height)
        for x in eyeXs {
            if open {
                canvas.fill(g.ellipse(x, eyeY, 11, 8), RGB(240, 240, 235), clip: clip)
                canvas.fill(g.ellipse(x, eyeY, 6, 6.5), look.iris, clip: clip)
                canvas.fill(g.ellipse(x, eyeY, 3, 3.5), RGB(12, 12, 14), clip: clip)
            } else {
                canvas.fill(g.ellipse(x, eyeY + 1, 12, 2.5), look.lashes, clip: clip)
            }
        }
    }

    /// The mouth at `level` (0 closed ... `FaceSource.mouthLevels`), its width by `vowel` (round for o and u); inside
    /// `clip` (the mouth box).
    static func drawMouth(level: Int, vowel: Int, _ look: FaceLook, on canvas: inout I420Canvas, clip: PixelRect) {
        let g = FaceGrid(width: canvas.width, height: canvas.height)
        guard level > 0 else {
            canvas.fill(g.rect(mouthX - 18, mouthY - 2, mouthX + 18, mouthY + 2), look.lips, clip: clip)
            return
        }
        let open = Double(min(level, FaceSource.mouthLevels)) / Double(FaceSource.mouthLevels)
        let widths = [1.0, 1.05, 1.1, 0.75, 0.65]
        let rx = 20 * widths[min(max(vowel, 0), widths.count - 1)]
        let ry = 3 + 11 * open
        canvas.fill(g.ellipse(mouthX, mouthY, rx + 2, ry + 2), look.lips, clip: clip)
        let inner = g.ellipse(mouthX, mouthY, rx, ry)
        canvas.fill(inner, RGB(55, 18, 24), clip: clip)
        if open > 0.35 {
            // The upper teeth: the top of the opening, inside it.
            let teeth = g.rect(mouthX - rx, mouthY - ry, mouthX + rx, mouthY - ry + 4 + 4 * open)
            canvas.fill(inner, RGB(235, 230, 220), clip: teeth.intersection(clip))
        }
    }
}
