import AssessmentKit

/// QTI items and content packages: a single item file, a package's `imsmanifest.xml` with the
/// items it lists, or a zip holding both.
public enum QTIReader {
    /// Item files and manifests larger than this are refused.
    public static let maximumXMLBytes = XMLTree.maximumBytes

    /// A zip package, a manifest, or one item. `folder` holds the files next to `file` (the
    /// package a manifest lists, the images an item shows); `path` is `file` inside it.
    public static func read(bytes: [UInt8], file: String, folder: PackageFiles?, path: String?) throws(ImportRefusal) -> ImportedBank {
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) || bytes.starts(with: [0x50, 0x4B, 0x05, 0x06]) {
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
        var bank = ImportedBank(file: file)
        let outcome = QTIItemReader.read(root, file: file, fallbackName: stem(file))
        bank.diagnostics = outcome.diagnostics
        if let question = outcome.question {
            bank.sections = [ImportedSection(questions: [question])]
            if let folder, let path {
                bank.diagnostics += missing(outcome.assets, from: path, in: folder, label: file)
            }
        }
        return bank
    }

    /// Items in the order the manifest lists them; without a manifest, every item file in the package.
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
        if let (path, root) = manifest {
            let listed = resources(root, manifestPath: path)
            itemPaths = listed.items
            for href in listed.outside {
                bank.diagnostics.append(.error(files.label(path), nil, "the manifest's reference href=\"\(href.clippedForMessage(limit: 200))\" leaves the package; only files inside the package are read, so that item was not imported"))
            }
            for (href, owner) in listed.outsideFiles {
                bank.diagnostics.append(.warning(files.label(owner ?? path), nil, "asset \(href.clippedForMessage(limit: 200)) points outside the package (listed in the manifest)"))
            }
            if itemPaths.isEmpty && listed.outside.isEmpty {
                bank.diagnostics.append(.error(files.label(path), nil, "the manifest lists no QTI item (a <resource> whose type starts with imsqti_item)"))
            }
            for (asset, owner) in listed.files where !files.paths.contains(asset) {
                bank.diagnostics.append(.warning(files.label(owner ?? path), nil, "missing asset \(asset.clippedForMessage(limit: 200)) (listed in the manifest)"))
            }
            for item in itemPaths where !files.paths.contains(item) {
                bank.diagnostics.append(.error(files.label(path), nil, "the manifest lists \(item.clippedForMessage(limit: 200)), which is not in the package"))
            }
            itemPaths = itemPaths.filter { files.paths.contains($0) }
        } else {
            itemPaths = files.paths.filter { $0.lowercased().hasSuffix(".xml") }.sorted()
            bank.diagnostics.append(.warning(name, nil, "the package has no imsmanifest.xml; every XML file in it is read as an item"))
        }
        var section = ImportedSection()
        for path in itemPaths {
            let label = files.label(path)
            guard let bytes = try files.read(path, limit: maximumXMLBytes) else {
                bank.diagnostics.append(.error(label, nil, "the item file cannot be read"))
                continue
            }
            let root: XElement
            do {
                root = try XMLTree.parse(bytes)
            } catch {
                bank.diagnostics.append(try problem(error, label))
                continue
            }
            if manifest == nil && root.name != "assessmentItem" { continue }
            let outcome = QTIItemReader.read(root, file: label, fallbackName: stem(path))
            bank.diagnostics += outcome.diagnostics
            if let question = outcome.question {
                section.questions.append(question)
                bank.diagnostics += missing(outcome.assets, from: path, in: files, label: label)
            }
        }
        if !section.questions.isEmpty { bank.sections = [section] }
        return bank
    }

    /// `imsmanifest.xml` at the top, else the shallowest one.
    static func manifestPath(in paths: Set<String>) -> String? {
        if paths.contains("imsmanifest.xml") { return "imsmanifest.xml" }
        return paths.filter { $0.lowercased().hasSuffix("/imsmanifest.xml") }
            .min { ($0.split(separator: "/").count, $0) < ($1.split(separator: "/").count, $1) }
    }

    /// What a manifest lists: item files (resources of an `imsqti_item_*` type), every other
    /// listed file with the item it belongs to, and the references that leave the package
    /// (`../x.xml`, `/x.xml`, a web address), as written: items, then other files.
    struct Listing {
        var items: [String] = []
        var files: [(String, String?)] = []
        var outside: [String] = []
        var outsideFiles: [(String, String?)] = []
    }

    static func resources(_ root: XElement, manifestPath: String) -> Listing {
        var listing = Listing()
        for resources in root.all("resources") {
            let outer = resources.attributes["base"] ?? ""
            for resource in resources.all("resource") {
                let base = manifestPath.split(separator: "/").dropLast().joined(separator: "/")
                let prefix = [base, outer, resource.attributes["base"] ?? ""].filter { !$0.isEmpty }
                    .map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }.joined(separator: "/")
                let anchor = prefix.isEmpty ? "x" : prefix + "/x"
                // imsqti_item_xmlv2p1, imsqti_item_xmlv3p0, imsqti_apipitem_xmlv2p1 …
                let type = (resource.attributes["type"] ?? "").lowercased()
                let isItem = type.hasPrefix("imsqti") && type.contains("item")
                var itemPath: String? = nil
                let itemHref = isItem ? resource.attributes["href"] ?? resource.first("file")?.attributes["href"] : nil
                if let href = itemHref {
                    if let path = PackagePath.resolve(href, from: anchor) {
                        itemPath = path
                        if !listing.items.contains(path) { listing.items.append(path) }
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
