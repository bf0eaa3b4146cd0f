import ImportKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAiken(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let bank = try? Importer.readText(Checks.bytes(data, size), file: "fuzz.txt", format: .aiken) else { return 0 }
    Checks.bank(bank)
    return 0
}
