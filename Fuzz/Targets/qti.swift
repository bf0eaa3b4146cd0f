import ImportKit

/// One QTI item or manifest as XML (the XML parser with its DTD refusal, then the item reader).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQTI(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let folder = MemoryPackage(name: "", files: [:])
    guard let bank = try? QTIReader.read(bytes: Checks.bytes(data, size), file: "fuzz.xml", folder: folder, path: "imsmanifest.xml") else {
        return 0
    }
    Checks.bank(bank)
    return 0
}
