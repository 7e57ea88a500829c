/// How one participant's drawn face looks: background, skin, hair (style and colour), shirt and eyes, picked from
/// `participant` so tiles tell people apart and a person looks the same in every call and every process. The
/// background follows the participant number modulo 7, like the test card's colour; the rest comes from a hash of it.
struct FaceLook: Sendable, Equatable {
    typealias YUV = (UInt8, UInt8, UInt8)

    enum HairStyle: Int, CaseIterable, Sendable {
        case short, long, bun, curly, bob, buzz
    }

    let background: RGB
    let skin: RGB
    let hair: RGB
    let hairStyle: HairStyle
    let shirt: RGB
    let iris: RGB

    init(participant: UInt8) {
        let p = Int(participant)
        // The salts (130 + n) were chosen so the demo's first four (Ada, Grace, Linus, Radia) differ in hair style
        // and colour.
        func pick<T>(_ options: [T], _ salt: Int) -> T { options[Int(SeededHash.bits(p, 130 + salt) % UInt64(options.count))] }
        background = Self.backgrounds[p % Self.backgrounds.count]
        skin = pick(Self.skins, 1)
        hair = pick(Self.hairs, 2)
        hairStyle = pick(HairStyle.allCases, 3)
        shirt = pick(Self.shirts, 4)
        iris = pick(Self.irises, 5)
    }

    /// Muted, mid-dark colours, so the face and the white name stand out on every one.
    static let backgrounds: [RGB] = [
        RGB(70, 110, 170), RGB(175, 95, 70), RGB(75, 135, 90), RGB(145, 90, 150),
        RGB(55, 135, 145), RGB(165, 135, 60), RGB(100, 100, 125),
    ]
    static let skins: [RGB] = [
        RGB(250, 220, 190), RGB(240, 195, 160), RGB(222, 170, 130), RGB(195, 140, 100), RGB(150, 100, 70), RGB(110, 75, 55),
    ]
    static let hairs: [RGB] = [
        RGB(30, 25, 25), RGB(70, 45, 30), RGB(120, 80, 45), RGB(150, 70, 35), RGB(215, 180, 110), RGB(165, 165, 170),
    ]
    static let shirts: [RGB] = [
        RGB(40, 60, 110), RGB(205, 205, 210), RGB(150, 40, 50), RGB(40, 110, 80), RGB(225, 175, 60), RGB(60, 60, 65),
    ]
    static let irises: [RGB] = [RGB(80, 50, 25), RGB(60, 100, 160), RGB(70, 120, 70), RGB(35, 25, 20)]

    /// The lips: the skin, reddened and a little darker.
    var lips: RGB { skin.mixed(with: RGB(170, 55, 60), 0.5) }
    /// Shadows on the skin (nose, neck, closed eyelids' lashes).
    var shade: RGB { skin.mixed(with: RGB(60, 30, 20), 0.25) }
    var lashes: RGB { skin.mixed(with: RGB(30, 20, 15), 0.7) }
    var brows: RGB { hair.mixed(with: RGB(30, 20, 15), 0.35) }
}

/// A colour in 8-bit sRGB, turned into BT.601 studio-range Y'CbCr (what I420 holds) when drawn.
struct RGB: Sendable, Equatable {
    let r: Int, g: Int, b: Int

    init(_ r: Int, _ g: Int, _ b: Int) {
        self.r = min(max(r, 0), 255); self.g = min(max(g, 0), 255); self.b = min(max(b, 0), 255)
    }

    /// `self` moved `amount` (0...1) of the way to `other`.
    func mixed(with other: RGB, _ amount: Double) -> RGB {
        let a = min(max(amount, 0), 1)
        func m(_ x: Int, _ y: Int) -> Int { Int((Double(x) * (1 - a) + Double(y) * a).rounded()) }
        return RGB(m(r, other.r), m(g, other.g), m(b, other.b))
    }

    var yuv: (UInt8, UInt8, UInt8) {
        let (r, g, b) = (Double(self.r), Double(self.g), Double(self.b))
        func byte(_ x: Double) -> UInt8 { UInt8(min(max(x.rounded(), 0), 255)) }
        return (byte(16 + 0.257 * r + 0.504 * g + 0.098 * b),
                byte(128 - 0.148 * r - 0.291 * g + 0.439 * b),
                byte(128 + 0.439 * r - 0.368 * g - 0.071 * b))
    }
}
