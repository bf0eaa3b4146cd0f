import ImportKit

/// A zip content package: the bounds on entries, sizes, ratios and paths, then the package reader.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZip(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let package = try? ZipPackage(bytes: Checks.bytes(data, size), name: "fuzz.zip"),
          let bank = try? QTIReader.readPackage(package, name: "fuzz.zip")
    else { return 0 }
    Checks.bank(bank)
    return 0
}
