import AssessmentKit
import Foundation
import Testing
import ZIPFoundation
@testable import ImportKit

// Packages: folders, manifests and zips, and the zips that must be refused.
extension QTITests {
    static func folder(_ name: String) throws -> MemoryPackage {
        var files: [String: [UInt8]] = [:]
        for path in Fixtures.files(in: name, extensions: [".xml", ".png"]) {
            files[String(path.dropFirst(name.count + 1))] = try Fixtures.bytes(path)
        }
        return MemoryPackage(name: name, files: files)
    }

    @Test func aPackageFolderImportsInManifestOrderWithMissingAssetsAsWarnings() throws {
        let package = try Self.folder("package21")
        #expect(package.paths.count == 6)
        let bank = try QTIReader.readPackage(package, name: "package21")
        #expect(bank.types == [.choice, .order, .match])
        #expect(bank.questions.map(\.name) == ["choice", "order", "match"])
        #expect(Set(bank.diagnostics.map(\.description)) == [
            "package21/items/order.xml: warning: missing asset items/images/podium.png (listed in the manifest)",
            "package21/imsmanifest.xml: warning: missing asset shared/style.css (listed in the manifest)",
            "package21/imsmanifest.xml: error: the manifest lists items/gone.xml, which is not in the package",
            "package21/items/match.xml:2: warning: the pairs are worth different points in the item's mapping; in Carrel every pair is worth the same share of the item's points",
            "package21/items/hotspot.xml:12: warning: skipped: hotspotInteraction needs a picture to point at, which a terminal cannot show",
        ])
        _ = try expectValidAssessment([bank])
    }

    @Test func assetsOutsideThePackageAreNamedAndWebAddressesAreNot() {
        let files = MemoryPackage(name: "p", files: ["img/ok.png": [1], "items/q.xml": [1]])
        let notes = QTIReader.missing(["../img/ok.png", "../../up.png", "https://example.org/a.png", "data:image/png;base64,AA==",
                                       "../img/gone.png", "../../up.png", "", "#", "#top", "//cdn.example.org/x.png"],
                                      from: "items/q.xml", in: files, label: "p:items/q.xml")
        #expect(notes.map(\.description) == [
            "p:items/q.xml: warning: asset ../../up.png points outside the package (shown by the item)",
            "p:items/q.xml: warning: missing asset img/gone.png (shown by the item)",
        ])
    }

    static func manifest(_ resources: String) -> [UInt8] {
        Array("<manifest><resources>\(resources)</resources></manifest>".utf8)
    }

    @Test(arguments: ["../x.xml", "/etc/x.xml", "items/../../x.xml", "C:\\bank\\x.xml", "https://example.org/x.xml"])
    func aManifestWhoseItemLeavesThePackageSaysSo(href: String) throws {
        let resource = "<resource identifier=\"i\" type=\"imsqti_item_xmlv2p1\" href=\"\(href)\"><file href=\"\(href)\"/></resource>"
        let package = MemoryPackage(name: "p", files: ["imsmanifest.xml": Self.manifest(resource), "items/a.xml": try Fixtures.bytes("qti21/choice.xml")])
        let bank = try QTIReader.readPackage(package, name: "p")
        #expect(bank.items.isEmpty)
        #expect(bank.diagnostics.map(\.description) == [
            "p/imsmanifest.xml: error: the manifest's reference href=\"\(href)\" leaves the package; only files inside the package are read, so that item was not imported",
        ])
    }

    @Test func aManifestListingNoItemAndAssetsOutsideThePackageAreNamed() throws {
        let none = MemoryPackage(name: "p", files: ["imsmanifest.xml": Self.manifest(
            "<resource identifier=\"t\" type=\"webcontent\" href=\"page.html\"><file href=\"page.html\"/></resource>"), "page.html": [1]])
        #expect(try QTIReader.readPackage(none, name: "p").diagnostics.map(\.description) == [
            "p/imsmanifest.xml: error: the manifest lists no QTI item (a <resource> whose type starts with imsqti_item) and no test (imsqti_test)",
        ])
        let asset = MemoryPackage(name: "p", files: ["imsmanifest.xml": Self.manifest("""
            <resource identifier="i" type="imsqti_item_xmlv2p1" href="items/a.xml"><file href="items/a.xml"/>\
            <file href="../logo.png"/><file href="https://example.org/x.png"/></resource>
            """), "items/a.xml": try Fixtures.bytes("qti21/choice.xml"), "items/images/sign.png": [1]])
        let bank = try QTIReader.readPackage(asset, name: "p")
        #expect(bank.items.count == 1)
        #expect(bank.diagnostics.map(\.description) == ["p/items/a.xml: warning: asset ../logo.png points outside the package (listed in the manifest)"])
    }

    @Test func aManifestFileNamedDirectlyReadsItsFolder() throws {
        let package = try Self.folder("package30")
        let bank = try QTIReader.read(bytes: try Fixtures.bytes("package30/imsmanifest.xml"), file: "package30/imsmanifest.xml",
                                      folder: package, path: "imsmanifest.xml")
        #expect(bank.types == [.text, .choice])
        #expect(bank.skips.count == 1)
    }

    static func zip(_ files: [(String, [UInt8])], compress: Bool = true) throws -> [UInt8] {
        let archive = try Archive(data: Data(), accessMode: .create)
        for (path, bytes) in files {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(bytes.count),
                                 compressionMethod: compress ? .deflate : .none) { position, size in
                Data(bytes[Int(position)..<Int(position) + size])
            }
        }
        return [UInt8](try #require(archive.data))
    }

    @Test func aZipPackageImportsLikeItsFolder() throws {
        let package = try Self.folder("package21")
        let zip = try Self.zip(package.files.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        let bank = try QTIReader.read(bytes: zip, file: "package21.zip", folder: nil, path: nil)
        #expect(bank.types == [.choice, .order, .match])
        #expect(bank.diagnostics.contains { $0.description == "package21.zip:items/order.xml: warning: missing asset items/images/podium.png (listed in the manifest)" })
    }

    @Test func aZipWithoutAManifestReadsEveryItem() throws {
        let zip = try Self.zip([("a/choice.xml", try Fixtures.bytes("qti30/choice.xml")), ("b/order.xml", try Fixtures.bytes("qti21/order.xml"))])
        let bank = try QTIReader.read(bytes: zip, file: "loose.zip", folder: nil, path: nil)
        #expect(bank.types == [.choice, .order])
        #expect(bank.diagnostics.map(\.description) == [
            "loose.zip: warning: the package has no imsmanifest.xml; every XML file in it is read as an item",
            "loose.zip:a/choice.xml: warning: missing asset a/images/sign.png (shown by the item)",
        ])
    }

    func refusal(_ body: () throws -> Void) -> ImportRefusal? {
        do {
            try body()
            return nil
        } catch let refusal as ImportRefusal {
            return refusal
        } catch {
            return nil
        }
    }

    @Test func pathsLeavingThePackageAreRefused() throws {
        let zip = try Self.zip([("imsmanifest.xml", Array("<manifest/>".utf8)), ("../../etc/evil.xml", Array("<a/>".utf8))])
        let refused = refusal { _ = try QTIReader.read(bytes: zip, file: "evil.zip", folder: nil, path: nil) }
        #expect(refused?.description == "evil.zip: refused: the package holds the path “../../etc/evil.xml”, which leads outside it")
        let absolute = try Self.zip([("/etc/passwd", Array("x".utf8))])
        #expect(refusal { _ = try QTIReader.read(bytes: absolute, file: "abs.zip", folder: nil, path: nil) } != nil)
        #expect(PackagePath.resolve("../../x.png", from: "items/q.xml") == nil)
        #expect(PackagePath.resolve("../img/x%20y.png", from: "items/q.xml") == "img/x y.png")
        #expect(PackagePath.resolve("https://example.org/x.png", from: "q.xml") == nil)
    }

    /// Offset of the central directory record of the first entry, and of the end record.
    static func directory(_ zip: [UInt8]) throws -> (entry: Int, end: Int) {
        let end = try #require(ZipStructure.endRecord(zip))
        return (Int(ZipStructure.u32(zip, end + 16)), end)
    }

    @Test func damagedDirectoriesAndTruncatedStreamsAreRefusedNotFollowed() throws {
        let item = try Fixtures.bytes("qti21/choice.xml")
        let manifest = #"<manifest><resources><resource type="imsqti_item_xmlv2p1" href="items/choice.xml"/></resources></manifest>"#
        let good = try Self.zip([("imsmanifest.xml", Array(manifest.utf8)), ("items/choice.xml", item)])
        #expect(try QTIReader.read(bytes: good, file: "good.zip", folder: nil, path: nil).types == [.choice])

        // The directory says it starts past the end of the file.
        var outside = good
        let (_, end) = try Self.directory(good)
        outside.replaceSubrange((end + 16)..<(end + 20), with: [0xF0, 0xFF, 0xFF, 0x7F])
        #expect(refusal { _ = try QTIReader.read(bytes: outside, file: "o.zip", folder: nil, path: nil) }?.reason
                == "the zip archive is damaged (its directory points outside the file)")

        // The second entry's deflated data is cut short: the inflater must stop, not wait.
        var cut = good
        let (first, _) = try Self.directory(good)
        let second = first + 46 + Int(ZipStructure.u16(good, first + 28)) + Int(ZipStructure.u16(good, first + 30))
        cut.replaceSubrange((second + 20)..<(second + 24), with: [7, 0, 0, 0])
        let clock = ContinuousClock()
        let start = clock.now
        let refused = refusal { _ = try QTIReader.read(bytes: cut, file: "cut.zip", folder: nil, path: nil) }
        #expect(clock.now - start < .seconds(5))
        #expect(refused?.reason == "the file cannot be unpacked: its compressed data is damaged", "\(String(describing: refused))")
        // Garbage is not a zip at all.
        #expect(refusal { _ = try ZipPackage(bytes: Array("PK\u{03}\u{04}nonsense".utf8), name: "g.zip") }?.reason
                == "this is not a zip archive (no end of central directory)")
    }

    @Test func zipBombsAreRefusedInBoundedTime() throws {
        let clock = ContinuousClock()
        let start = clock.now
        // 64 MiB of zeros packs into a few dozen KiB: far above any ratio a bank has.
        let zeros = [UInt8](repeating: 0, count: 64 * 1024 * 1024)
        let bomb = try Self.zip([("imsmanifest.xml", Array("<manifest/>".utf8)), ("items/bomb.xml", zeros)])
        #expect(bomb.count < 1024 * 1024)
        let refused = refusal { _ = try QTIReader.read(bytes: bomb, file: "bomb.zip", folder: nil, path: nil) }
        #expect(refused?.description.contains("looks like a zip bomb") == true, "\(String(describing: refused))")
        let many = try Self.zip((0...ZipPackage.maximumEntries).map { ("f\($0).txt", [UInt8]()) }, compress: false)
        #expect(refusal { _ = try QTIReader.read(bytes: many, file: "many.zip", folder: nil, path: nil) }?.reason
                == "the package has more than 10000 files")
        #expect(clock.now - start < .seconds(60))
    }
}
