import AssessmentKit

/// QTI items, tests and content packages: a single item file, a test file next to its items,
/// a package's `imsmanifest.xml` with the test or items it lists, or a zip holding them.
public enum QTIReader {
    /// Item files and manifests larger than this are refused.
    public static let maximumXMLBytes = XMLTree.maximumBytes

    /// A zip package, a manifest, a test or one item. `folder` holds the files next to `file`
    /// (the package a manifest lists, the items a test uses, the images an item shows); `path`
    /// is `file` inside it.
    public static func read(bytes: [UInt8], file: String, folder: PackageFiles?, path: String?) throws(ImportRefusal) -> ImportedBank {
        if ZipPackage.isZip(bytes) {
            return try readPackage(ZipPackage(bytes: bytes, name: file), name: file)
        }
        let root: XElement
        do {
            root = try XMLTree.parse(bytes)
        } catch {
            return try ImportedBank(file: file, diagnostics: [problem(error, file)])
        }
        if root.name == "manifest", let folder {
            return try readPackage(folder, name: file, manifest: (path ?? "imsmanifest.xml", root))
        }
        if root.name == "assessmentTest", let folder, let path {
            // A test named on its own: its items are the files next to it.
            var bank = ImportedBank(file: file)
            _ = try QTITestReader.read(root, path: path, in: folder, into: &bank)
            return bank
        }
        var bank = ImportedBank(file: file)
        let outcome = QTIItemReader.read(root, file: file, fallbackName: stem(file))
        bank.diagnostics = outcome.diagnostics
        if var question = outcome.question {
            if let folder, let path {
                bank.diagnostics += missing(outcome.assets, from: path, in: folder, label: file)
            }
            try addPassages(to: &question, of: root, path: path, in: folder, label: file, into: &bank.diagnostics)
            bank.sections = [ImportedSection(questions: [question])]
        }
        return bank
    }

    /// The package's test when it has one (its items in the test's sections, the items no test
    /// uses left out); else its items in the order the manifest lists them; without a
    /// manifest, every item file in the package.
    public static func readPackage(_ files: PackageFiles, name: String) throws(ImportRefusal) -> ImportedBank {
        try readPackage(files, name: name, manifest: nil)
    }

    static func readPackage(_ files: PackageFiles, name: String,
                            manifest given: (path: String, root: XElement)?) throws(ImportRefusal) -> ImportedBank {
        var bank = ImportedBank(file: name)
        var manifest = given
        if manifest == nil, let path = manifestPath(in: files.paths) {
            guard let bytes = try files.read(path, limit: maximumXMLBytes) else {
                throw ImportRefusal(file: files.label(path), reason: "the manifest cannot be read")
            }
            do {
                manifest = (path, try XMLTree.parse(bytes))
            } catch {
                bank.diagnostics.append(try problem(error, files.label(path)))
                return bank
            }
        }
        var itemPaths: [String] = []
        var testPaths: [String] = []
        // Tests already parsed (a package without a manifest is read whole to find its test;
        // item trees are not kept, so only one is in memory at a time).
        var parsed: [String: XElement] = [:]
        if let (path, root) = manifest {
            let listed = resources(root, manifestPath: path)
            for href in listed.outside {
                bank.diagnostics.append(.error(files.label(path), nil, "the manifest's reference href=\"\(href.clippedForMessage(limit: 200))\" leaves the package; only files inside the package are read, so that item was not imported"))
            }
            for (href, owner) in listed.outsideFiles {
                bank.diagnostics.append(.warning(files.label(owner ?? path), nil, "asset \(href.clippedForMessage(limit: 200)) points outside the package (listed in the manifest)"))
            }
            if listed.items.isEmpty && listed.tests.isEmpty && listed.outside.isEmpty {
                bank.diagnostics.append(.error(files.label(path), nil, "the manifest lists no QTI item (a <resource> whose type starts with imsqti_item) and no test (imsqti_test)"))
            }
            for (asset, owner) in listed.files where !files.paths.contains(asset) {
                bank.diagnostics.append(.warning(files.label(owner ?? path), nil, "missing asset \(asset.clippedForMessage(limit: 200)) (listed in the manifest)"))
            }
            for listedPath in listed.tests + listed.items where !files.paths.contains(listedPath) {
                bank.diagnostics.append(.error(files.label(path), nil, "the manifest lists \(listedPath.clippedForMessage(limit: 200)), which is not in the package"))
            }
            itemPaths = listed.items.filter { files.paths.contains($0) }
            testPaths = listed.tests.filter { files.paths.contains($0) }
        } else {
            (itemPaths, testPaths, parsed) = try unlisted(files, name: name, into: &bank.diagnostics)
        }
        if let test = testPaths.first {
            let place = manifest.map { files.label($0.path) } ?? name
            if testPaths.count > 1 {
                let others = testPaths.dropFirst().map { $0.clippedForMessage(limit: 200) }.joined(separator: ", ")
                bank.diagnostics.append(.warning(place, nil, "the package holds \(testPaths.count) tests; only \(test.clippedForMessage(limit: 200)) is read (left out: \(others.clippedForMessage(limit: 400)))"))
            }
            guard let root = try parsedOrRead(test, parsed, files, what: "test", into: &bank.diagnostics) else { return bank }
            guard root.name == "assessmentTest" else {
                bank.diagnostics.append(.error(files.label(test), root.line, "the manifest lists this file as a test, but its root element is <\(root.shownName.clippedForMessage)>, not <assessmentTest>"))
                return bank
            }
            let used = try QTITestReader.read(root, path: test, in: files, into: &bank)
            let unused = itemPaths.filter { !used.contains($0) }.count
            if unused > 0 {
                let items = unused == 1 ? "1 item" : "\(unused) items"
                bank.diagnostics.append(.warning(place, nil, "\(items) of the package \(unused == 1 ? "is" : "are") not in the test and left out"))
            }
            return bank
        }
        var section = ImportedSection()
        for path in itemPaths {
            guard let root = try parsedOrRead(path, parsed, files, what: "item", into: &bank.diagnostics) else { continue }
            if let question = try item(root, path: path, in: files, into: &bank.diagnostics) {
                section.questions.append(question)
            }
        }
        if !section.questions.isEmpty { bank.sections = [section] }
        return bank
    }

    /// A package without a manifest: its XML files whose root is an item or a test (the tests
    /// kept parsed). Questions in a format Carrel does not read here are counted, never passed over.
    static func unlisted(_ files: PackageFiles, name: String, into diagnostics: inout [ImportDiagnostic])
        throws(ImportRefusal) -> (items: [String], tests: [String], parsed: [String: XElement]) {
        var items: [String] = [], tests: [String] = [], parsed: [String: XElement] = [:]
        for path in files.paths.filter({ $0.lowercased().hasSuffix(".xml") }).sorted() {
            guard let root = try parseFile(path, in: files, what: "XML", into: &diagnostics) else { continue }
            switch root.name {
            case "assessmentItem": items.append(path)
            case "assessmentTest": tests.append(path); parsed[path] = root
            case "questestinterop": diagnostics.append(.error(files.label(path), root.line, QTIItemReader.qti1))
            case "quiz": diagnostics.append(.error(files.label(path), root.line, "a Moodle XML export inside a package is not read; import the file on its own"))
            default: continue
            }
        }
        let read = tests.first.map { "its test \($0.clippedForMessage(limit: 200)) is read" } ?? "every XML file in it is read as an item"
        diagnostics.insert(.warning(name, nil, "the package has no imsmanifest.xml; \(read)"), at: 0)
        return (items, tests, parsed)
    }

    /// A file parsed before, or parsed now.
    static func parsedOrRead(_ path: String, _ parsed: [String: XElement], _ files: PackageFiles, what: String,
                             into diagnostics: inout [ImportDiagnostic]) throws(ImportRefusal) -> XElement? {
        if let root = parsed[path] { return root }
        return try parseFile(path, in: files, what: what, into: &diagnostics)
    }

    /// One file of the package parsed, or nil with the reason added to `diagnostics`.
    static func parseFile(_ path: String, in files: PackageFiles, what: String,
                          into diagnostics: inout [ImportDiagnostic]) throws(ImportRefusal) -> XElement? {
        let label = files.label(path)
        guard let bytes = try files.read(path, limit: maximumXMLBytes) else {
            diagnostics.append(.error(label, nil, "the \(what) file cannot be read"))
            return nil
        }
        do {
            return try XMLTree.parse(bytes)
        } catch {
            diagnostics.append(try problem(error, label))
            return nil
        }
    }

    /// One item of the package as a question, with its diagnostics and the files it shows
    /// that the package does not hold.
    static func item(_ root: XElement, path: String, in files: PackageFiles,
                     into diagnostics: inout [ImportDiagnostic]) throws(ImportRefusal) -> ImportedQuestion? {
        let label = files.label(path)
        let outcome = QTIItemReader.read(root, file: label, fallbackName: stem(path))
        diagnostics += outcome.diagnostics
        guard var question = outcome.question else { return nil }
        diagnostics += missing(outcome.assets, from: path, in: files, label: label)
        try addPassages(to: &question, of: root, path: path, in: files, label: label, into: &diagnostics)
        return question
    }

    /// `imsmanifest.xml` at the top, else the shallowest one.
    static func manifestPath(in paths: Set<String>) -> String? {
        if paths.contains("imsmanifest.xml") { return "imsmanifest.xml" }
        return paths.filter { $0.lowercased().hasSuffix("/imsmanifest.xml") }
            .min { ($0.split(separator: "/").count, $0) < ($1.split(separator: "/").count, $1) }
    }

    /// What a manifest lists: item files (resources of an `imsqti_item_*` type), test files
    /// (`imsqti_test_*`), every other listed file with the item it belongs to, and the
    /// references that leave the package (`../x.xml`, `/x.xml`, a web address), as written:
    /// items and tests, then other files.
    struct Listing {
        var items: [String] = []
        var tests: [String] = []
        var files: [(String, String?)] = []
        var outside: [String] = []
        var outsideFiles: [(String, String?)] = []
    }

    static func resources(_ root: XElement, manifestPath: String) -> Listing {
        var listing = Listing()
        for resources in root.all("resources") {
            let outer = resources.attributes["xml:base"] ?? ""
            for resource in resources.all("resource") {
                let base = manifestPath.split(separator: "/").dropLast().joined(separator: "/")
                let prefix = [base, outer, resource.attributes["xml:base"] ?? ""].filter { !$0.isEmpty }
                    .map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }.joined(separator: "/")
                let anchor = prefix.isEmpty ? "x" : prefix + "/x"
                // imsqti_item_xmlv2p1, imsqti_item_xmlv3p0, imsqti_apipitem_xmlv2p1 …
                let type = (resource.attributes["type"] ?? "").lowercased()
                // imsqti_test_xmlv2p1, imsqti_test_xmlv2p2, imsqti_test_xmlv3p0 …
                let isItem = type.hasPrefix("imsqti") && type.contains("item")
                let isTest = type.hasPrefix("imsqti_test")
                var itemPath: String? = nil
                let itemHref = isItem || isTest ? resource.attributes["href"] ?? resource.first("file")?.attributes["href"] : nil
                if let href = itemHref {
                    if let path = PackagePath.resolve(href, from: anchor) {
                        itemPath = path
                        if isItem, !listing.items.contains(path) { listing.items.append(path) }
                        if isTest, !listing.tests.contains(path) { listing.tests.append(path) }
                    } else if !listing.outside.contains(href) {
                        listing.outside.append(href)
                    }
                }
                for file in resource.all("file") {
                    guard let href = file.attributes["href"], href != itemHref else { continue }
                    guard let path = PackagePath.resolve(href, from: anchor) else {
                        if PackagePath.isLocal(href) { listing.outsideFiles.append((href, itemPath)) }
                        continue
                    }
                    if path != itemPath { listing.files.append((path, itemPath)) }
                }
            }
        }
        return listing
    }

    /// Warnings for the images and media an item shows that the package does not hold.
    static func missing(_ assets: [String], from itemPath: String, in files: PackageFiles, label: String) -> [ImportDiagnostic] {
        var seen: Set<String> = []
        var out: [ImportDiagnostic] = []
        for asset in assets {
            guard let path = PackagePath.resolve(asset, from: itemPath) else {
                // A web address or an empty reference is not the package's; a path that climbs
                // out of the package cannot be shown from it.
                if PackagePath.isLocal(asset), seen.insert(asset).inserted {
                    out.append(.warning(label, nil, "asset \(asset.clippedForMessage(limit: 200)) points outside the package (shown by the item)"))
                }
                continue
            }
            guard seen.insert(path).inserted else { continue }
            if !files.paths.contains(path) {
                out.append(.warning(label, nil, "missing asset \(path.clippedForMessage(limit: 200)) (shown by the item)"))
            }
        }
        return out
    }

    /// An XML file whose root element is none Carrel reads: the formats it would accept.
    static func unknownRoot(_ root: XElement) -> String {
        "its root element is <\(root.shownName.clippedForMessage)>, which Carrel does not import; an XML file must be a Moodle XML export "
            + "(root <quiz>), or a QTI 2.1, 2.2 or 3.0 item (<assessmentItem>), test (<assessmentTest>) or package manifest "
            + "(imsmanifest.xml, root <manifest>); export the questions in one of these formats"
    }

    static func problem(_ error: XMLTree.Problem, _ label: String) throws(ImportRefusal) -> ImportDiagnostic {
        switch error {
        case let .refused(reason): throw ImportRefusal(file: label, reason: reason)
        case let .malformed(line, reason): return .error(label, line, reason)
        }
    }

    /// `items/choice.xml` → `choice`.
    static func stem(_ path: String) -> String {
        let last = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = last.lastIndex(of: "."), dot > last.startIndex else { return last }
        return String(last[..<dot])
    }
}
