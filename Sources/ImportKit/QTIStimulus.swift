/// QTI 3 passages (`qti-assessment-stimulus-ref`): the text several items share, kept in a file
/// of its own. The student needs it to answer, so it is read from the package and put before
/// the item's own text; one that cannot be read is said, never dropped without a word.
extension QTIReader {
    static func addPassages(to question: inout ImportedQuestion, of root: XElement, path: String?, in files: PackageFiles?,
                            label: String, into diagnostics: inout [ImportDiagnostic]) throws(ImportRefusal) {
        let refs = root.all("assessmentStimulusRef")
        guard !refs.isEmpty else { return }
        var passages: [String] = []
        for ref in refs {
            let href = ref.attributes["href"] ?? ""
            let shown = href.isEmpty ? "(no href)" : href.clippedForMessage(limit: 200)
            guard let files, let path, let target = PackagePath.resolve(href, from: path), files.paths.contains(target) else {
                diagnostics.append(.warning(label, ref.line, "the passage \(shown) is not next to the item; the item is imported without it"))
                continue
            }
            guard let stimulus = try parseFile(target, in: files, what: "passage", into: &diagnostics) else { continue }
            guard stimulus.name == "assessmentStimulus", let body = stimulus.first("stimulusBody") else {
                diagnostics.append(.warning(label, ref.line, "\(shown) is not a QTI passage (<qti-assessment-stimulus>); the item is imported without it"))
                continue
            }
            var text = QTIBody(target: nil)
            text.render(body)
            diagnostics += missing(text.assets, from: target, in: files, label: files.label(target))
            let passage = text.builder.text
            if !passage.isEmpty { passages.append(passage) }
        }
        guard !passages.isEmpty else { return }
        question.item.prompt = (passages + [question.item.prompt]).joined(separator: "\n\n")
    }
}
