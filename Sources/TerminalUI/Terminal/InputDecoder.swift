/// What arrived from the terminal, as a screen acts on it.
public enum TerminalInput: Sendable, Equatable {
    case keys([Key])
    /// A paste attempt: how many characters it really held, and its keys (kept for the
    /// places where pasting is allowed, and for a start screen that is not yet locked).
    case paste(characters: Int, keys: [Key])
    case focus(Bool)
    case resize
    /// The store's feed has news (the loop's `LoopBell` was rung): a reading, a start, a command.
    case store
    case lost
}

/// Terminal input as a byte-stream state machine: timestamped chunks of bytes in, keys,
/// paste attempts and focus changes out. Pure: the caller reads the bytes and the clock.
///
/// Pastes are recognised by principle, whatever way the bytes are cut into reads:
/// - **Markers**: everything after a bracketed-paste start marker is paste, nested or
///   unmatched markers included, until an end marker is followed by quiet; an end marker
///   inside the payload (`ESC[201~…ESC[200~`) therefore ends nothing. Keys that had not
///   yet been judged as typing when a marker arrives (start or end) belong to the paste.
/// - **Rate**: keys arriving faster than a person types are a paste. A token bucket holds
///   `capacity` keys and refills at `rate` keys per second; a key that finds it empty starts
///   a paste. Typed keys are held until the bucket is full again (and at least `hold`
///   seconds), so the first keys of a fast burst are never let through before the burst is
///   seen: any input sustained faster than `rate` enters nothing.
/// A paste ends when no marker is open, `settle` seconds passed since its last marker and
/// the bucket is full again; it is then reported once, with its true character count.
public struct InputDecoder: Sendable {
    /// Who is typing: a student's answer, or a proctor's secret line.
    public enum Mode: Sendable, Equatable {
        case answer
        /// The next line is a secret (a proctor passphrase): keys pass at once, whatever
        /// their speed, and nothing is a paste. The mode ends by itself with Enter or
        /// Escape, so keys after the line are judged as usual.
        case secret
    }

    /// The numbers behind the judgement; `standard` is what Carrel uses.
    public struct Tuning: Sendable, Equatable {
        /// Keys that may arrive at once (a laggy SSH link delivers a few together).
        public var capacity: Double
        /// Keys per second sustained by a fast typist (30 ms per key is 33 per second).
        public var rate: Double
        /// Shortest time a typed key is held before it is let through.
        public var hold: Double
        /// Quiet after a paste's last marker before the paste is over.
        public var settle: Double
        /// How long a lone ESC (or an unfinished sequence) waits for the rest.
        public var escapeWait: Double
        /// How long an unfinished paste marker (`ESC[20`) waits for the rest.
        public var markerWait: Double
        /// A start marker with no end marker stops counting as open after this much quiet.
        public var unterminatedPaste: Double
        /// At most this many keys of a paste are kept (all are counted).
        public var keptKeys: Int

        public static let standard = Tuning(
            capacity: 7, rate: 60, hold: 0.06, settle: 0.1, escapeWait: 0.1, markerWait: 0.5,
            unterminatedPaste: 1.0, keptKeys: 65_536)
    }

    /// One decoded unit of input.
    enum Token: Equatable {
        case key(Key)
        case pasteStart, pasteEnd
        case focus(Bool)
        /// A sequence Carrel does not use (it is dropped, and is not a character).
        case ignored
    }

    struct Paste {
        var characters = 0
        var keys: [Key] = []
        /// Inside a start marker with no end marker yet.
        var open = false
        var lastMarker: Double?
        var lastActivity: Double
    }

    public let tuning: Tuning
    public var mode: Mode = .answer
    private var partial: [UInt8] = []
    private var partialSince = 0.0
    private var held: [(key: Key, at: Double)] = []
    private var tokens: Double
    private var tokensAt = 0.0
    private var paste: Paste?

    public init(tuning: Tuning = .standard) {
        self.tuning = tuning
        self.tokens = tuning.capacity
    }

    // MARK: entry points

    /// Bytes read from the terminal at `time` (seconds on a monotonic clock).
    public mutating func feed(_ bytes: [UInt8], at time: Double) -> [TerminalInput] {
        var out = settle(time)
        let input = partial + bytes
        partial = []
        let (decoded, rest) = Self.decode(input)
        if !rest.isEmpty {
            partial = rest
            partialSince = time
        }
        for token in decoded { process(token, at: time, into: &out) }
        out += settle(time)
        return Self.merged(out)
    }

    /// Lets time pass: releases typed keys that proved to be typing, ends pastes that
    /// settled, and gives up waiting for the rest of an escape sequence.
    public mutating func advance(to time: Double) -> [TerminalInput] {
        Self.merged(settle(time))
    }

    /// Adjacent runs of keys as one.
    static func merged(_ inputs: [TerminalInput]) -> [TerminalInput] {
        var out: [TerminalInput] = []
        for input in inputs {
            if case let .keys(more) = input, case let .keys(before)? = out.last {
                out[out.count - 1] = .keys(before + more)
            } else {
                out.append(input)
            }
        }
        return out
    }

    mutating func settle(_ time: Double) -> [TerminalInput] {
        var out: [TerminalInput] = []
        if !partial.isEmpty, time - partialSince >= wait(for: partial) {
            let stale = partial
            partial = []
            for token in Self.flush(stale) { process(token, at: partialSince, into: &out) }
        }
        refill(time)
        if var p = paste {
            if p.open && time - p.lastActivity >= tuning.unterminatedPaste { p.open = false }
            paste = p
            let settled = p.lastMarker.map { time - $0 >= tuning.settle } ?? true
            if !p.open && settled && tokens >= tuning.capacity {
                out.append(.paste(characters: p.characters, keys: p.keys))
                paste = nil
            }
        }
        if paste == nil && tokens >= tuning.capacity {
            let due = held.prefix { time - $0.at >= tuning.hold }
            if !due.isEmpty {
                out.append(.keys(due.map(\.key)))
                held.removeFirst(due.count)
            }
        }
        return out
    }

    /// When `advance` next has something to do; nil when it is only waiting for input.
    public var nextDeadline: Double? {
        var times: [Double] = []
        if !partial.isEmpty { times.append(partialSince + wait(for: partial)) }
        let full = tokensAt + max(0, tuning.capacity - tokens) / tuning.rate
        if let p = paste {
            if p.open {
                times.append(p.lastActivity + tuning.unterminatedPaste)
            } else {
                times.append(max(full, (p.lastMarker ?? 0) + tuning.settle))
            }
        } else if let first = held.first {
            times.append(max(full, first.at + tuning.hold))
        }
        return times.min()
    }

    /// Keys held while they are judged, in order, when no paste has begun: what the screen
    /// may show as typed before it enters anything (empty once a paste takes them).
    public var tentative: [Key] { paste == nil ? held.map(\.key) : [] }

    /// Whether keys or a paste are waiting for judgement (nothing is lost by waiting).
    public var isHolding: Bool { !held.isEmpty || paste != nil || !partial.isEmpty }

    // MARK: judgement

    mutating func refill(_ time: Double) {
        if time > tokensAt {
            tokens = min(tuning.capacity, tokens + (time - tokensAt) * tuning.rate)
            tokensAt = time
        }
    }

    mutating func consume() {
        tokens = max(-tuning.capacity, tokens - 1)
    }

    mutating func startPaste(at time: Double) {
        var p = Paste(lastActivity: time)
        for h in held { add(h.key, to: &p) }
        held = []
        paste = p
    }

    func add(_ key: Key, to p: inout Paste) {
        p.characters += 1
        if p.keys.count < tuning.keptKeys { p.keys.append(key) }
    }

    mutating func process(_ token: Token, at time: Double, into out: inout [TerminalInput]) {
        refill(time)
        switch token {
        case let .focus(on):
            out.append(.focus(on))
        case .ignored:
            if paste != nil { paste?.lastActivity = time }
        case .pasteStart, .pasteEnd:
            // In a secret line markers mean nothing; once the line ends, what follows is judged.
            if mode == .secret && paste == nil && held.isEmpty { return }
            if paste == nil { startPaste(at: time) }
            paste?.open = token == .pasteStart
            paste?.lastMarker = time
            paste?.lastActivity = time
        case let .key(key):
            if paste != nil {
                consume()
                // Changed in place: a copy of a long paste per key would be quadratic.
                paste?.characters += 1
                if let kept = paste?.keys.count, kept < tuning.keptKeys { paste?.keys.append(key) }
                paste?.lastActivity = time
            } else if mode == .secret && held.isEmpty {
                out.append(.keys([key]))
                if key == .enter || key == .escape { mode = .answer }
            } else if held.isEmpty && partial.isEmpty && !Self.types(key) {
                // A key that edits no text (Tab, arrows, Page keys, F-keys, Ctrl) with nothing
                // held ahead of it acts at once: it cannot put a character into an answer, and
                // it still counts against the rate, so a burst of them is a paste as before.
                consume()
                if tokens < 0 {
                    held.append((key, time))
                    startPaste(at: time)
                } else {
                    out.append(.keys([key]))
                }
            } else {
                consume()
                held.append((key, time))
                if tokens < 0 { startPaste(at: time) }
            }
        }
    }

    /// Whether a key changes the text of an answer (a character, a line break in an essay,
    /// a deletion): such keys are always held and judged.
    static func types(_ key: Key) -> Bool {
        switch key {
        case .character, .enter, .backspace, .delete: return true
        default: return false
        }
    }

    // MARK: bytes to tokens

    /// How long an unfinished sequence waits: longer once it can only be a paste marker.
    func wait(for bytes: [UInt8]) -> Double {
        let marker: [UInt8] = [0x1B, 0x5B, 0x32, 0x30]
        return bytes.count >= 3 && Array(bytes.prefix(3)) == Array(marker.prefix(3))
            && zip(bytes, marker).allSatisfy { $0 == $1 } ? tuning.markerWait : tuning.escapeWait
    }

    /// Decodes as much of `bytes` as is complete; returns the tokens and the unfinished tail.
    static func decode(_ bytes: [UInt8]) -> ([Token], [UInt8]) {
        var tokens: [Token] = []
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x1B {
                switch escape(bytes, at: i) {
                case .incomplete:
                    return (tokens, Array(bytes[i...]))
                case let .token(token, length):
                    tokens.append(token)
                    i += length
                case .lone:
                    // ESC followed by something that starts no sequence: Escape, then that.
                    tokens.append(.key(.escape))
                    i += 1
                }
                continue
            }
            if b < 0x80 {
                tokens.append(key(scalar: UInt32(b)).map(Token.key) ?? .ignored)
                i += 1
                continue
            }
            let length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
            if length == 1 || b > 0xF4 {
                tokens.append(.ignored)
                i += 1
                continue
            }
            if i + length > bytes.count {
                // An unfinished character waits for its last bytes, unless they can never come.
                if bytes[(i + 1)...].allSatisfy({ $0 & 0xC0 == 0x80 }) { return (tokens, Array(bytes[i...])) }
                tokens.append(.ignored)
                i += 1
                continue
            }
            var iterator = bytes[i..<(i + length)].makeIterator()
            var utf8 = UTF8()
            if case let .scalarValue(scalar) = utf8.decode(&iterator) {
                tokens.append(key(scalar: scalar.value).map(Token.key) ?? .ignored)
                i += length
            } else {
                tokens.append(.ignored)
                i += 1
            }
        }
        return (tokens, [])
    }

    /// An unfinished sequence that waited long enough: a lone ESC is the Escape key and the
    /// bytes after it are taken literally; an unfinished character is dropped.
    static func flush(_ bytes: [UInt8]) -> [Token] {
        guard bytes.first == 0x1B else { return [.ignored] }
        let (rest, tail) = decode(Array(bytes.dropFirst()))
        return [.key(.escape)] + rest + (tail.isEmpty ? [] : flush(tail))
    }

    enum Escape {
        case incomplete
        case token(Token, length: Int)
        case lone
    }

    /// Longest escape sequence considered; anything longer is not a key.
    static let longestSequence = 32

    static func escape(_ bytes: [UInt8], at start: Int) -> Escape {
        guard start + 1 < bytes.count else { return .incomplete }
        let introducer = bytes[start + 1]
        if introducer == 0x4F {  // SS3: ESC O x
            guard start + 2 < bytes.count else { return .incomplete }
            return .token(ss3(bytes[start + 2]), length: 3)
        }
        guard introducer == 0x5B else { return .lone }  // CSI: ESC [
        if start + 2 < bytes.count, bytes[start + 2] == 0x5B {  // Linux console F1–F5: ESC [ [ A
            guard start + 3 < bytes.count else { return .incomplete }
            let n = Int(bytes[start + 3]) - 0x40
            return .token((1...5).contains(n) ? .key(.function(n)) : .ignored, length: 4)
        }
        var j = start + 2
        while j < bytes.count {
            let c = bytes[j]
            if (0x40...0x7E).contains(c) {
                let parameters = String(decoding: bytes[(start + 2)..<j], as: UTF8.self)
                return .token(csi(parameters, final: c), length: j - start + 1)
            }
            guard (0x20...0x3F).contains(c), j - start < longestSequence else { return .lone }
            j += 1
        }
        return .incomplete
    }

    static func ss3(_ final: UInt8) -> Token {
        switch final {
        case 0x41: return .key(.up)
        case 0x42: return .key(.down)
        case 0x43: return .key(.right)
        case 0x44: return .key(.left)
        case 0x48: return .key(.home)
        case 0x46: return .key(.end)
        case 0x4D: return .key(.enter)
        case 0x50...0x53: return .key(.function(Int(final) - 0x4F))
        default: return .ignored
        }
    }

    /// CSI sequences of xterm, VTE, rxvt, tmux/screen and the Linux console.
    static func csi(_ parameters: String, final: UInt8) -> Token {
        let numbers = parameters.split(separator: ";").map { Int($0) }
        let first = numbers.first ?? nil
        let shift = numbers.count > 1 && numbers[1] == 2
        switch final {
        case 0x41: return .key(shift ? .shiftUp : .up)
        case 0x42: return .key(shift ? .shiftDown : .down)
        case 0x43: return .key(.right)
        case 0x44: return .key(.left)
        case 0x61: return .key(.shiftUp)  // rxvt
        case 0x62: return .key(.shiftDown)
        case 0x63: return .key(.right)
        case 0x64: return .key(.left)
        case 0x48: return .key(.home)
        case 0x46: return .key(.end)
        case 0x5A: return .key(.backTab)
        case 0x49: return parameters.isEmpty ? .focus(true) : .ignored
        case 0x4F: return parameters.isEmpty ? .focus(false) : .ignored
        case 0x50...0x53: return .key(.function(Int(final) - 0x4F))
        case 0x7E:
            switch first {
            case 1, 7: return .key(.home)
            case 4, 8: return .key(.end)
            case 3: return .key(.delete)
            case 5: return .key(.pageUp)
            case 6: return .key(.pageDown)
            case let n? where (11...15).contains(n): return .key(.function(n - 10))
            case let n? where (17...21).contains(n): return .key(.function(n - 11))
            case 23: return .key(.function(11))
            case 24: return .key(.function(12))
            case 200: return .pasteStart
            case 201: return .pasteEnd
            default: return .ignored
            }
        default:
            return .ignored
        }
    }

    /// The key for one character of input (C0 controls become Enter, Tab, Backspace,
    /// Escape or Ctrl-letter; C1 controls and NUL are nothing).
    public static func key(scalar value: UInt32) -> Key? {
        switch value {
        case 0x0D, 0x0A: return .enter
        case 0x09: return .tab
        case 0x1B: return .escape
        case 0x7F, 0x08: return .backspace
        case 0x1C: return .control("\\")
        case 0x01...0x1A: return .control(Character(UnicodeScalar(UInt8(value + 96))))
        case 0x00, 0x1D...0x1F: return nil
        case 0x80...0x9F: return nil
        default:
            guard let scalar = UnicodeScalar(value) else { return nil }
            return .character(Character(scalar))
        }
    }
}
