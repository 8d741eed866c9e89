// The shipped comics, drawn from code so that anyone can re-make or change them. Each is one
// scene, with big shapes and faces that still read at terminal size (about 80×40 pixels).
import Foundation
import TerminalUI

enum Expression { case joy, fury, shock, sleepy, worried, smug, gentle, tired }

let ink = RGBA(30, 24, 28)
let white = RGBA(250, 250, 245)

extension Canvas {
    /// A face: eyes, brows and mouth arranged for the expression, on a head already drawn.
    mutating func face(_ cx: Double, _ cy: Double, _ r: Double, _ expression: Expression) {
        let eyeY = cy - r * 0.18
        let eyeDX = r * 0.36
        let eyeR = r * 0.16
        switch expression {
        case .sleepy, .tired:
            for side in [-1.0, 1.0] {
                arc(cx + side * eyeDX, eyeY, eyeR, eyeR * 0.7, from: 20, to: 160, thickness: r * 0.07, ink)
                if expression == .tired {
                    arc(
                        cx + side * eyeDX, eyeY + eyeR * 0.9, eyeR * 1.1, eyeR * 0.5, from: 20, to: 160,
                        thickness: r * 0.05, RGBA(110, 80, 120))
                }
            }
        default:
            let size = expression == .shock ? eyeR * 1.4 : eyeR
            for side in [-1.0, 1.0] {
                circle(cx + side * eyeDX, eyeY, size, white)
                arc(cx + side * eyeDX, eyeY, size, size, from: 0, to: 360, thickness: r * 0.04, ink)
                let look = expression == .smug ? side * size * 0.35 : 0
                circle(cx + side * eyeDX + look, eyeY + size * 0.15, size * 0.5, ink)
            }
        }
        // Brows.
        let browY = eyeY - eyeR * 1.9
        for side in [-1.0, 1.0] {
            let inner = cx + side * eyeDX * 0.45
            let outer = cx + side * eyeDX * 1.5
            switch expression {
            case .fury: line(inner, browY + eyeR * 0.9, outer, browY - eyeR * 0.4, width: r * 0.1, ink)
            case .worried: line(inner, browY - eyeR * 0.6, outer, browY + eyeR * 0.5, width: r * 0.08, ink)
            case .shock:
                arc(
                    cx + side * eyeDX, browY - eyeR * 0.3, eyeR, eyeR * 0.5, from: 200, to: 340, thickness: r * 0.07,
                    ink)
            case .smug:
                line(
                    inner, browY + (side > 0 ? -eyeR * 0.5 : 0), outer, browY - eyeR * (side > 0 ? 0.9 : 0.2),
                    width: r * 0.07, ink)
            default: break
            }
        }
        // Mouth.
        let mouthY = cy + r * 0.38
        switch expression {
        case .joy:
            lowerHalfEllipse(cx, mouthY - r * 0.1, r * 0.45, r * 0.38, ink)
            ellipse(cx, mouthY + r * 0.14, r * 0.22, r * 0.1, RGBA(220, 80, 90))
        case .gentle, .smug:
            arc(
                cx + (expression == .smug ? r * 0.1 : 0), mouthY - r * 0.15, r * 0.3, r * 0.2, from: 20, to: 160,
                thickness: r * 0.07, ink)
        case .fury:
            roundedRect(cx - r * 0.38, mouthY - r * 0.1, r * 0.76, r * 0.26, radius: r * 0.06, ink)
            rect(cx - r * 0.32, mouthY - r * 0.05, r * 0.64, r * 0.16, white)
            for tooth in stride(from: -0.2, through: 0.21, by: 0.2) {
                line(cx + r * tooth, mouthY - r * 0.05, cx + r * tooth, mouthY + r * 0.11, width: r * 0.03, ink)
            }
        case .shock:
            ellipse(cx, mouthY + r * 0.05, r * 0.17, r * 0.24, ink)
        case .worried, .tired:
            arc(cx, mouthY + r * 0.12, r * 0.25, r * 0.14, from: 200, to: 340, thickness: r * 0.07, ink)
        case .sleepy:
            ellipse(cx, mouthY, r * 0.09, r * 0.07, ink)
        }
    }

    mutating func zzz(_ x: Double, _ y: Double, _ size: Double) {
        for (index, scale) in [1.0, 0.75, 0.55].enumerated() {
            let s = size * scale
            let ox = x + Double(index) * size * 0.9
            let oy = y - Double(index) * size * 0.9
            line(ox, oy, ox + s, oy, width: s * 0.18, ink)
            line(ox + s, oy, ox, oy + s, width: s * 0.18, ink)
            line(ox, oy + s, ox + s, oy + s, width: s * 0.18, ink)
        }
    }
}

struct Comic: Sendable {
    let path: String
    let draw: @Sendable (inout Canvas) -> Void
}

let comicWidth = 240
let comicHeight = 160

let comics: [Comic] = [
    Comic(path: "comics/night-shift.png") { c in
        c.gradient(RGBA(16, 22, 60), RGBA(44, 54, 110))
        c.circle(200, 32, 18, RGBA(245, 235, 180))
        c.circle(208, 26, 16, RGBA(26, 34, 78))
        for (x, y) in [(30.0, 20.0), (70, 40), (150, 15), (120, 50), (175, 70)] { c.circle(x, y, 1.6, white) }
        // The bakery counter and a loaf.
        c.rect(0, 125, 240, 35, RGBA(120, 74, 40))
        c.rect(0, 122, 240, 5, RGBA(160, 104, 60))
        c.ellipse(180, 118, 34, 10, RGBA(222, 164, 84))
        for x in [160.0, 176, 192] { c.line(x, 112, x + 8, 122, width: 2.5, RGBA(170, 110, 50)) }
        // The owl, wide awake.
        c.ellipse(95, 100, 40, 42, RGBA(140, 96, 62))
        c.ellipse(95, 110, 26, 28, RGBA(214, 184, 140))
        c.polygon([(60, 62), (70, 76), (76, 60)], RGBA(140, 96, 62))
        c.polygon([(130, 62), (120, 76), (114, 60)], RGBA(140, 96, 62))
        c.face(95, 88, 34, .tired)
        c.polygon([(91, 92), (99, 92), (95, 100)], RGBA(240, 170, 40))
        // A baker's hat.
        c.roundedRect(74, 46, 42, 18, radius: 6, white)
        c.circle(82, 46, 10, white)
        c.circle(95, 42, 12, white)
        c.circle(108, 46, 10, white)
    },
    Comic(path: "comics/monday-coffee.png") { c in
        c.gradient(RGBA(240, 226, 200), RGBA(214, 190, 160))
        c.rect(0, 130, 240, 30, RGBA(110, 80, 60))
        // The machine, fed up.
        c.roundedRect(60, 20, 110, 112, radius: 10, RGBA(90, 96, 104))
        c.roundedRect(70, 30, 90, 62, radius: 8, RGBA(200, 206, 210))
        c.face(115, 62, 36, .fury)
        c.rect(100, 96, 30, 10, RGBA(50, 50, 56))
        // A small mug and angry steam.
        c.roundedRect(101, 108, 28, 22, radius: 4, white)
        c.arc(132, 118, 6, 6, from: 270, to: 90, thickness: 3, white)
        c.rect(104, 110, 22, 5, RGBA(96, 60, 36))
        for x in [175.0, 190, 205] {
            c.arc(x, 50, 6, 10, from: 90, to: 270, thickness: 3, RGBA(160, 160, 170))
            c.arc(x, 30, 6, 10, from: 270, to: 90, thickness: 3, RGBA(160, 160, 170))
        }
        c.line(18, 30, 40, 20, width: 4, RGBA(220, 60, 60))
        c.line(18, 45, 44, 45, width: 4, RGBA(220, 60, 60))
    },
    Comic(path: "comics/cat-judge.png") { c in
        c.gradient(RGBA(120, 70, 50), RGBA(80, 44, 30))
        c.rect(0, 112, 240, 48, RGBA(150, 96, 56))
        c.rect(0, 108, 240, 6, RGBA(190, 130, 80))
        // The cat in a judge's wig.
        c.polygon([(80, 40), (88, 8), (108, 34)], RGBA(236, 150, 60))
        c.polygon([(160, 40), (152, 8), (132, 34)], RGBA(236, 150, 60))
        for y in stride(from: 40.0, through: 100, by: 14) {
            c.circle(74, y, 10, white)
            c.circle(166, y, 10, white)
        }
        c.ellipse(120, 66, 46, 40, RGBA(236, 150, 60))
        c.line(100, 40, 110, 52, width: 3, RGBA(200, 110, 40))
        c.line(140, 40, 130, 52, width: 3, RGBA(200, 110, 40))
        c.face(120, 64, 40, .smug)
        c.polygon([(115, 72), (125, 72), (120, 78)], RGBA(240, 120, 140))
        for side in [-1.0, 1.0] {
            for dy in [-3.0, 3.0] { c.line(120 + side * 20, 78 + dy, 120 + side * 44, 74 + dy * 2, width: 1.2, ink) }
        }
        // The gavel.
        c.line(190, 128, 214, 96, width: 5, RGBA(110, 64, 30))
        c.roundedRect(196, 82, 34, 16, radius: 4, RGBA(90, 50, 24))
        c.rect(172, 128, 48, 8, RGBA(90, 50, 24))
    },
    Comic(path: "comics/deploy-friday.png") { c in
        c.gradient(RGBA(250, 200, 120), RGBA(240, 130, 80))
        // The wall clock at five.
        c.circle(200, 36, 22, white)
        c.arc(200, 36, 22, 22, from: 0, to: 360, thickness: 3, ink)
        c.line(200, 36, 200, 20, width: 3, ink)
        c.line(200, 36, 212, 44, width: 3, ink)
        // The desk, the laptop, the flames.
        c.rect(0, 128, 240, 32, RGBA(90, 60, 50))
        c.polygon([(130, 128), (210, 128), (200, 118), (140, 118)], RGBA(60, 64, 70))
        c.roundedRect(142, 74, 56, 46, radius: 3, RGBA(60, 64, 70))
        c.rect(147, 79, 46, 36, RGBA(30, 34, 40))
        c.polygon([(150, 114), (158, 88), (166, 102), (172, 80), (180, 104), (186, 92), (190, 114)], RGBA(250, 90, 40))
        c.polygon([(158, 114), (164, 98), (170, 108), (176, 94), (182, 114)], RGBA(255, 210, 60))
        // The developer, sweating.
        c.ellipse(72, 140, 44, 30, RGBA(60, 110, 170))
        c.circle(72, 78, 36, RGBA(240, 196, 160))
        c.arc(72, 72, 36, 34, from: 190, to: 350, thickness: 12, RGBA(70, 40, 30))
        c.face(72, 80, 32, .worried)
        c.polygon([(104, 62), (100, 72), (108, 72)], RGBA(120, 190, 240))
        c.circle(104, 73, 4, RGBA(120, 190, 240))
    },
    Comic(path: "comics/rain-check.png") { c in
        c.gradient(RGBA(150, 210, 250), RGBA(200, 236, 255))
        c.circle(210, 28, 16, RGBA(255, 220, 70))
        for angle in stride(from: 0.0, to: 360, by: 45) {
            let a = angle * .pi / 180
            c.line(
                210 + 20 * cos(a), 28 + 20 * sin(a), 210 + 28 * cos(a), 28 + 28 * sin(a), width: 2.5, RGBA(255, 200, 50)
            )
        }
        c.rect(0, 134, 240, 26, RGBA(110, 180, 90))
        // The personal cloud and its rain.
        for x in stride(from: 72.0, through: 128, by: 8) { c.line(x, 44, x - 6, 62, width: 2, RGBA(60, 110, 200)) }
        c.circle(80, 30, 16, RGBA(130, 134, 150))
        c.circle(100, 22, 20, RGBA(130, 134, 150))
        c.circle(122, 32, 15, RGBA(130, 134, 150))
        c.ellipse(100, 38, 34, 10, RGBA(130, 134, 150))
        // The commuter, soaked.
        c.roundedRect(78, 100, 44, 44, radius: 10, RGBA(200, 80, 70))
        c.circle(100, 86, 22, RGBA(230, 180, 140))
        c.face(100, 88, 20, .worried)
        c.rect(138, 96, 8, 42, RGBA(60, 60, 70))
        c.roundedRect(134, 92, 22, 14, radius: 3, RGBA(90, 70, 50))
    },
    Comic(path: "comics/lost-sock.png") { c in
        c.gradient(RGBA(210, 230, 240), RGBA(180, 200, 216))
        c.rect(0, 136, 240, 24, RGBA(160, 160, 170))
        // The washing machine with a portal for a door.
        c.roundedRect(30, 30, 110, 110, radius: 8, white)
        c.rect(30, 30, 110, 18, RGBA(220, 224, 230))
        c.circle(120, 39, 5, RGBA(90, 160, 220))
        c.circle(85, 92, 38, RGBA(120, 124, 134))
        c.circle(85, 92, 32, RGBA(70, 30, 110))
        c.arc(85, 92, 24, 24, from: 0, to: 250, thickness: 5, RGBA(180, 90, 230))
        c.arc(85, 92, 14, 14, from: 90, to: 340, thickness: 4, RGBA(220, 150, 255))
        c.circle(85, 92, 4, white)
        // The sock, escaping, pleased with itself.
        c.polygon([(150, 60), (170, 48), (196, 82), (214, 86), (218, 102), (192, 104), (166, 76)], RGBA(240, 90, 110))
        c.line(152, 58, 170, 48, width: 6, white)
        for (x, y) in [(172.0, 62.0), (184, 78), (200, 94)] {
            c.line(x - 4, y + 4, x + 6, y - 4, width: 3, RGBA(255, 200, 80))
        }
        c.face(198, 94, 10, .joy)
        for (x, y) in [(140.0, 100.0), (132, 112), (146, 118)] { c.circle(x, y, 2, RGBA(180, 90, 230)) }
    },
    Comic(path: "comics/robot-gardener.png") { c in
        c.gradient(RGBA(190, 230, 250), RGBA(230, 246, 250))
        c.rect(0, 128, 240, 32, RGBA(120, 84, 50))
        for x in stride(from: 10.0, through: 230, by: 22) { c.ellipse(x, 128, 12, 5, RGBA(90, 160, 70)) }
        // The tulip.
        c.line(170, 128, 170, 84, width: 4, RGBA(60, 150, 60))
        c.ellipse(180, 110, 10, 4, RGBA(80, 170, 70))
        c.polygon([(158, 84), (160, 64), (166, 74), (170, 60), (174, 74), (180, 64), (182, 84)], RGBA(230, 50, 70))
        // The robot, very careful.
        c.roundedRect(64, 80, 64, 52, radius: 8, RGBA(150, 160, 174))
        c.circle(96, 104, 8, RGBA(90, 200, 240))
        c.line(96, 22, 96, 34, width: 3, RGBA(100, 110, 120))
        c.circle(96, 20, 5, RGBA(240, 80, 80))
        c.roundedRect(66, 34, 60, 46, radius: 10, RGBA(180, 190, 204))
        c.face(96, 58, 24, .gentle)
        c.line(128, 94, 150, 90, width: 6, RGBA(150, 160, 174))
        c.line(150, 90, 162, 84, width: 4, RGBA(100, 110, 120))
        c.line(150, 90, 162, 96, width: 4, RGBA(100, 110, 120))
        c.circle(60, 60, 5, RGBA(255, 140, 160))
        c.circle(132, 60, 5, RGBA(255, 140, 160))
    },
    Comic(path: "comics/moon-pizza.png") { c in
        c.gradient(RGBA(6, 8, 24), RGBA(20, 22, 50))
        for (x, y) in [(20.0, 20.0), (60, 50), (110, 12), (150, 40), (230, 60), (90, 80), (10, 90)] {
            c.circle(x, y, 1.4, white)
        }
        // The Earth, far away.
        c.circle(200, 30, 18, RGBA(60, 120, 220))
        c.ellipse(194, 24, 8, 6, RGBA(80, 180, 90))
        c.ellipse(208, 36, 6, 4, RGBA(80, 180, 90))
        // The Sea of Tranquility.
        c.ellipse(120, 170, 180, 60, RGBA(170, 170, 176))
        for (x, y, r) in [(60.0, 132.0, 10.0), (150, 142, 14), (200, 128, 8)] {
            c.ellipse(x, y, r, r * 0.4, RGBA(140, 140, 148))
        }
        // The delivery astronaut and the pizza.
        c.roundedRect(72, 82, 48, 54, radius: 12, white)
        c.circle(96, 62, 28, white)
        c.circle(96, 62, 21, RGBA(40, 50, 80))
        c.circle(96, 62, 17, RGBA(240, 196, 160))
        c.face(96, 63, 16, .joy)
        c.polygon([(124, 100), (176, 84), (170, 116)], RGBA(240, 190, 80))
        c.polygon([(128, 100), (170, 88), (166, 112)], RGBA(230, 120, 50))
        for (x, y) in [(150.0, 96.0), (160, 104), (142, 102)] { c.circle(x, y, 3, RGBA(190, 40, 40)) }
    },
]

/// The random viewer's faces: one expression each, big.
let randomFaces: [Comic] = [
    ("random/joy.png", Expression.joy, RGBA(255, 214, 90), RGBA(120, 200, 255)),
    ("random/fury.png", Expression.fury, RGBA(236, 90, 70), RGBA(60, 20, 20)),
    ("random/shock.png", Expression.shock, RGBA(180, 220, 255), RGBA(250, 240, 140)),
    ("random/sleepy.png", Expression.sleepy, RGBA(200, 190, 240), RGBA(30, 30, 70)),
].map { path, expression, skin, background in
    Comic(path: path) { c in
        c.gradient(
            background,
            RGBA(
                UInt8(min(255, Int(background.r) + 40)), UInt8(min(255, Int(background.g) + 40)),
                UInt8(min(255, Int(background.b) + 40))))
        c.circle(120, 84, 62, skin)
        c.arc(120, 84, 62, 62, from: 0, to: 360, thickness: 4, ink)
        c.face(120, 86, 60, expression)
        switch expression {
        case .sleepy: c.zzz(178, 50, 14)
        case .fury:
            c.polygon([(190, 20), (200, 40), (214, 24), (208, 48)], RGBA(255, 220, 60))
            c.polygon([(40, 30), (52, 48), (30, 50)], RGBA(255, 220, 60))
        case .shock:
            c.line(28, 40, 44, 56, width: 4, ink)
            c.line(212, 40, 196, 56, width: 4, ink)
        default:
            for (x, y) in [(34.0, 34.0), (206, 40), (200, 130)] { c.circle(x, y, 5, white) }
        }
    }
}
