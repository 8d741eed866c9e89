// Products without an image get a picture of their initials on a colour from their id.
import Testing

@testable import TerminalUI

@Suite("Placeholder pictures")
struct PlaceholderPictureTests {
    @Test("initials come from the title's words, else from the id's last part")
    func initials() {
        #expect(PlaceholderPicture.initials(title: "Sport Utility Vehicle", id: "x") == "SU")
        #expect(PlaceholderPicture.initials(title: "Car", id: "x") == "C")
        #expect(PlaceholderPicture.initials(title: "بومة الليل", id: "sa.example.comic.night-owl") == "NO")
        #expect(PlaceholderPicture.initials(title: "猫法官", id: "cn.example.catjudge") == "C")
        #expect(PlaceholderPicture.initials(title: "", id: "...") == "?")
    }

    @Test("the colour is the same for the same id and differs between neighbours")
    func colour() {
        #expect(
            PlaceholderPicture.color(for: "nonconsumable.car") == PlaceholderPicture.color(for: "nonconsumable.car"))
        let colours = Set(
            ["nonconsumable.car", "nonconsumable.racecar", "nonconsumable.utilityvehicle"].map(PlaceholderPicture.color)
        )
        #expect(colours.count == 3)
    }

    @Test("the picture has its border, its background and white letter pixels in the middle")
    func picture() {
        let image = PlaceholderPicture.image(title: "Car", id: "nonconsumable.car")
        #expect(image.width == PlaceholderPicture.width && image.height == PlaceholderPicture.height)
        let background = PlaceholderPicture.color(for: "nonconsumable.car")
        #expect(image[10, 10] == background)
        #expect(image[0, 0] != background)
        let white = (0..<image.height).flatMap { y in (0..<image.width).map { x in image[x, y] } }.filter {
            $0 == RGBA(255, 255, 255)
        }
        // "C" is 5×7 cells with 13 of them lit, each 8×8 pixels.
        #expect(white.count == 13 * 64)
    }
}
