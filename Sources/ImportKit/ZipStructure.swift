/// Checks a zip's directory before ZIPFoundation reads it: every offset it will seek to lies
/// inside the bytes (its in-memory reader traps on an offset past the end), the directory
/// holds the entries it claims, and nothing uses ZIP64, which no question bank needs. Linear
/// in the size of the directory. Returns where each entry's data is, in directory order.
enum ZipStructure {
    struct Record: Equatable {
        var method: UInt16
        var packed: Int
        var unpacked: Int
        /// Offset of the entry's data, just after its local header.
        var data: Int
    }

    static let endRecordSize = 22
    static let longestComment = 0xFFFF

    struct Problem: Error { var reason: String }

    static func check(_ b: [UInt8]) throws(Problem) -> [Record] {
        guard let end = endRecord(b) else { throw Problem(reason: "this is not a zip archive (no end of central directory)") }
        if end >= 20, u32(b, end - 20) == 0x0706_4B50 { throw Problem(reason: "the package uses ZIP64, which a question bank never needs") }
        let count = Int(u16(b, end + 10)), size = Int(u32(b, end + 12)), start = Int(u32(b, end + 16))
        if count == 0xFFFF || size == 0xFFFF_FFFF || start == 0xFFFF_FFFF {
            throw Problem(reason: "the package uses ZIP64, which a question bank never needs")
        }
        guard start <= end, start + size <= end else { throw damaged }
        var records: [Record] = []
        var position = start
        for _ in 0..<count {
            guard position + 46 <= end, u32(b, position) == 0x0201_4B50 else { throw damaged }
            let flags = u16(b, position + 8), method = u16(b, position + 10)
            let packed = Int(u32(b, position + 20)), unpacked = Int(u32(b, position + 24))
            let name = Int(u16(b, position + 28)), extra = Int(u16(b, position + 30)), comment = Int(u16(b, position + 32))
            let local = Int(u32(b, position + 42))
            guard position + 46 + name + extra + comment <= end else { throw damaged }
            if packed == 0xFFFF_FFFF || unpacked == 0xFFFF_FFFF || local == 0xFFFF_FFFF
                || hasZIP64Field(b, from: position + 46 + name, length: extra) {
                throw Problem(reason: "the package uses ZIP64, which a question bank never needs")
            }
            guard local + 30 <= b.count, u32(b, local) == 0x0403_4B50 else { throw damaged }
            let localName = Int(u16(b, local + 26)), localExtra = Int(u16(b, local + 28))
            let data = local + 30 + localName + localExtra
            guard data <= b.count, !hasZIP64Field(b, from: local + 30 + localName, length: localExtra) else { throw damaged }
            // Bit 3: sizes follow the data in a descriptor, which the reader looks for right after it.
            if flags & 0x8 != 0 {
                guard data + (method == 0 ? unpacked : packed) <= b.count else { throw damaged }
            }
            records.append(Record(method: method, packed: packed, unpacked: unpacked, data: data))
            position += 46 + name + extra + comment
        }
        return records
    }

    static var damaged: Problem { Problem(reason: "the zip archive is damaged (its directory points outside the file)") }

    /// The end-of-central-directory record nearest the end, within the longest comment allowed.
    static func endRecord(_ b: [UInt8]) -> Int? {
        guard b.count >= endRecordSize else { return nil }
        var i = b.count - endRecordSize
        let stop = max(0, i - longestComment)
        while i >= stop {
            if u32(b, i) == 0x0605_4B50 { return i }
            i -= 1
        }
        return nil
    }

    static func hasZIP64Field(_ b: [UInt8], from start: Int, length: Int) -> Bool {
        var i = start
        let stop = min(b.count, start + length)
        while i + 4 <= stop {
            if u16(b, i) == 0x0001 { return true }
            i += 4 + Int(u16(b, i + 2))
        }
        return false
    }

    static func u16(_ b: [UInt8], _ i: Int) -> UInt16 {
        guard i >= 0, i + 2 <= b.count else { return 0 }
        return UInt16(b[i]) | UInt16(b[i + 1]) << 8
    }

    static func u32(_ b: [UInt8], _ i: Int) -> UInt32 {
        guard i >= 0, i + 4 <= b.count else { return 0 }
        return UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }
}
