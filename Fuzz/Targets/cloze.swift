import ImportKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCloze(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let bank = try? Importer.readText(Checks.bytes(data, size), file: "fuzz.txt", format: .cloze) else { return 0 }
    Checks.bank(bank)
    if Checks.deep {
        // Every question the Cloze reader accepts must pass the validator as written.
        let assembly = Importer.assemble([bank], options: .init(id: "fuzz", title: "Fuzz"))
        if let refused = assembly.diagnostics.first { fatalError("an accepted gap-fill question does not validate: \(refused)") }
    }
    return 0
}
