import ImportKit

/// One Moodle XML export: the format guess, the XML parser with its DTD refusal, then the
/// category, description and question readers.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMoodle(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Checks.bytes(data, size)
    _ = ImportFormat.guess(name: "fuzz.xml", bytes: bytes)
    guard let bank = try? MoodleReader.read(bytes: bytes, file: "fuzz.xml") else { return 0 }
    Checks.bank(bank)
    return 0
}
