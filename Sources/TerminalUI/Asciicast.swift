// A terminal session written as an asciicast v2 recording (the format asciinema's player and
// converters read): a JSON header line, then one `[seconds, "o", text]` line per frame, each frame
// the rows that changed, drawn with cursor moves and SGR colours. `scenario play --cast` uses it so
// that a demo can be shown to people who do not have the tool.
import Foundation

public final class AsciicastWriter {
    private let handle: FileHandle
    private let start: Date
    private let now: () -> Date
    private var previous: Screen?

    public enum Failure: Error, CustomStringConvertible {
        case cannotWrite(String)
        public var description: String {
            switch self {
            case .cannotWrite(let path): "\(path): cannot be written"
            }
        }
    }

    /// Creates (or empties) `url` and writes the header.
    public init(url: URL, size: Size, title: String, now: @escaping () -> Date = Date.init) throws(Failure) {
        guard FileManager.default.createFile(atPath: url.path, contents: nil),
            let handle = try? FileHandle(forWritingTo: url)
        else {
            throw Failure.cannotWrite(url.path)
        }
        self.handle = handle
        self.now = now
        start = now()
        let header: [String: Any] = [
            "version": 2, "width": size.columns, "height": size.rows, "timestamp": Int(start.timeIntervalSince1970),
            "title": title, "env": ["TERM": "xterm-256color"],
        ]
        write(try? JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
    }

    deinit { try? handle.close() }

    /// Adds a frame: a resize event when the size changed, then the rows that differ from the
    /// last frame (all of them, after a clear, for the first frame or a new size).
    public func record(_ screen: Screen) {
        let time = now().timeIntervalSince(start)
        var text = ""
        let sameSize = previous?.size == screen.size
        if previous != nil, !sameSize { event(time, "r", "\(screen.size.columns)x\(screen.size.rows)") }
        if !sameSize { text += "\u{1B}[0m\u{1B}[2J" }
        for y in 0..<screen.size.rows where !sameSize || !Self.rowEqual(screen, previous!, y) {
            text += "\u{1B}[\(y + 1);1H" + ANSIText.row(screen, y)
        }
        previous = screen
        if !text.isEmpty { event(time, "o", text) }
    }

    private static func rowEqual(_ a: Screen, _ b: Screen, _ y: Int) -> Bool {
        (0..<a.size.columns).allSatisfy { a[$0, y] == b[$0, y] }
    }

    private func event(_ time: TimeInterval, _ kind: String, _ data: String) {
        let seconds = (time * 1_000_000).rounded() / 1_000_000
        write(try? JSONSerialization.data(withJSONObject: [max(0, seconds), kind, data] as [Any], options: []))
    }

    private func write(_ line: Data?) {
        guard let line else { return }
        handle.write(line + Data("\n".utf8))
    }
}

/// A terminal that also records every frame it renders.
public final class RecordingTerminal: FrameRendering, EventListening {
    private let base: FrameRendering & EventListening
    private let writer: AsciicastWriter

    public init(_ base: FrameRendering & EventListening, writer: AsciicastWriter) {
        self.base = base
        self.writer = writer
    }

    public var size: Size { base.size }
    public var colorDepth: ColorDepth { base.colorDepth }

    @discardableResult
    public func render(_ screen: Screen) -> Int {
        writer.record(screen)
        return base.render(screen)
    }

    public func nextEvent(timeoutMilliseconds: Int) -> TerminalEvent {
        base.nextEvent(timeoutMilliseconds: timeoutMilliseconds)
    }
}
