import ImportKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGIFT(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let bank = try? Importer.readText(Checks.bytes(data, size), file: "fuzz.gift", format: .gift) else { return 0 }
    Checks.bank(bank)
    return 0
}
