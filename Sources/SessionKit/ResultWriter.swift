import Foundation
import Lockdown

/// Writes a result to `STATE/results/SESSION.json` (atomic, 0600) and into the journal.
public enum ResultWriter {
    /// The path written, or the reason it could not be; the journal copy is attempted either way.
    public static func write(_ result: ResultDocument, location: StateLocation, journal: any SessionStore) -> (String?, String?) {
        let data = result.json()
        try? journal.saveResult(session: result.session, json: String(decoding: data, as: UTF8.self))
        let path = "\(location.resultsDirectory)/\(result.session).json"
        do {
            try SecureFiles.prepareDirectory(location.resultsDirectory)
            try SecureFiles.writeAtomically(data + Data("\n".utf8), to: path)
            return (path, nil)
        } catch {
            return (nil, error.description)
        }
    }
}
