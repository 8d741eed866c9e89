// `storefront show-image FILE`: a picture drawn as the screen draws it, printed to standard
// output, so that images can be checked and demoed without opening the screen (T4).
import ArgumentParser
import Foundation
import TerminalUI

#if canImport(Glibc)
    import Glibc
#endif

struct ShowImage: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show-image",
        abstract:
            "Print a PNG or JPEG as half-block cells (ANSI colours on a terminal or with --color), or as a character ramp."
    )
    @Argument(help: "The PNG or JPEG file.") var file: String
    @Option(help: "Columns (default: the terminal's, else 80).") var width: Int?
    @Option(help: "Rows (default: the terminal's less two, else 24).") var height: Int?
    @Flag(help: "ANSI colours even when standard output is not a terminal.") var color = false
    @Option(help: ArgumentHelp("Colours to use: 256, 8 or none.", valueName: "depth"), transform: DepthArgument.parse)
    var depth: DepthArgument?

    func run() throws {
        let terminal = Self.terminalSize()
        let columns = width ?? terminal?.columns ?? 80
        let rows = height ?? terminal.map { max(1, $0.rows - 2) } ?? 24
        guard columns > 0, rows > 0, columns <= 1000, rows <= 1000 else {
            printError("storefront: --width and --height must be between 1 and 1000")
            throw ExitCode(2)
        }
        let useColor = (color || isatty(STDOUT_FILENO) != 0) && !Environment.current.noColor
        let colorDepth = depth?.depth ?? (useColor ? .palette256 : .none)
        let picture: Picture
        do {
            picture = try Picture(contentsOf: URL(fileURLWithPath: file), name: file, columns: columns, rows: rows)
        } catch {
            printError("storefront: \(error.description)")
            throw ExitCode(2)
        }
        let fitted = Scaler.fittedSize(width: picture.width, height: picture.height, columns: columns, rows: rows)
        var screen = TerminalUI.Screen(size: TerminalUI.Size(columns: fitted.width, rows: (fitted.height + 1) / 2))
        screen.draw(picture, in: screen.bounds, depth: colorDepth)
        print(ANSIText.render(screen), terminator: "")
    }

    static func terminalSize() -> TerminalUI.Size? {
        var size = winsize()
        guard isatty(STDOUT_FILENO) != 0, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else {
            return nil
        }
        return TerminalUI.Size(columns: Int(size.ws_col), rows: Int(size.ws_row))
    }
}
