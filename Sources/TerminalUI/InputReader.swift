import Foundation
import SessionKit


/// Turns raw terminal input into what a screen acts on: keys, whole pastes (bracketed, or a
/// burst that arrives at once), focus changes, resizes, and a terminal that went away.
public final class InputReader {
    public enum Input: Equatable {
        case keys([Key])
        case paste(characters: Int, keys: [Key])
        case focus(Bool)
        case resize
        case lost
    }

    /// A burst of this many characters in one read is a paste, not typing.
    static let burstThreshold = 8

    let canvas: any Terminal
    let monotonic = SessionClock.system.monotonic
    private var fastErrors = 0

    public init(canvas: any Terminal) { self.canvas = canvas }

    /// What arrived before the canvas's timeout, in order (often nothing).
    public func next() -> [Input] {
        let before = monotonic()
        guard let key = canvas.readKey() else {
            // wget_wch fails at once, forever, when the terminal is gone: a hang-up.
            if monotonic() - before < 0.05 {
                fastErrors += 1
                if fastErrors > 20 { return [.lost] }
            }
            return []
        }
        fastErrors = 0
        switch key {
        case .pasteStart: return [.paste(characters: drainPaste(), keys: [])]
        case .focusIn: return [.focus(true)]
        case .focusOut: return [.focus(false)]
        case .resize:
            canvas.invalidate()
            return [.resize]
        case .character:
            var batch = [key]
            while batch.count < 4096, let more = canvas.readPending() { batch.append(more) }
            if let marker = batch.firstIndex(of: .pasteStart) {
                // Typing, then a bracketed paste: the typing counts, the paste never does.
                let inside = batch[(marker + 1)...]
                let end = inside.firstIndex(of: .pasteEnd)
                var count = Self.typed(end.map { Array(inside[..<$0]) } ?? Array(inside))
                if end == nil { count += drainPaste() }
                let before: [Input] = marker == 0 ? [] : [.keys(Array(batch[..<marker]))]
                return before + [.paste(characters: count, keys: [])]
            }
            let typed = Self.typed(batch)
            return [typed >= Self.burstThreshold ? .paste(characters: typed, keys: batch) : .keys(batch)]
        default:
            return [.keys([key])]
        }
    }

    static func typed(_ keys: [Key]) -> Int {
        keys.filter { if case .character = $0 { return true } else { return $0 == .enter || $0 == .tab } }.count
    }

    /// Reads and discards a bracketed paste up to its end marker; bounded in time in case
    /// the end marker never comes.
    func drainPaste() -> Int {
        var count = 0
        let deadline = monotonic() + 5
        while monotonic() < deadline {
            guard let next = canvas.readKey() else { continue }
            if next == .pasteEnd { break }
            if case .character = next { count += 1 } else if next == .enter || next == .tab { count += 1 }
        }
        return count
    }
}
