import AssessmentKit

/// The assessment reader with its pre-scan: any bytes; a valid file must write out and read back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzYAML(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let outcome = AssessmentReader.read(bytes: Checks.bytes(data, size), file: "fuzz.yaml")
    for d in outcome.diagnostics { Checks.terminalSafe(d.message, multiLine: false) }
    if Checks.deep, let a = outcome.assessment { Checks.roundTrip(a, AssessmentWriter.yaml(a)) }
    return 0
}
