import AssessmentKit
import Foundation
import Testing
@testable import ImportKit

@Suite("QTI 2.1 and 3.0 tests: sections, pools, shuffle, time limit, navigation")
struct QTITestTests {
    /// A package folder of the fixtures (every file in it).
    static func folder(_ name: String) throws -> MemoryPackage {
        var files: [String: [UInt8]] = [:]
        for path in Fixtures.files(in: name, extensions: [".xml", ".png"]) {
            files[String(path.dropFirst(name.count + 1))] = try Fixtures.bytes(path)
        }
        return MemoryPackage(name: name, files: files)
    }

    /// A package from inline files, one of them a test.
    static func package(_ files: [String: String], name: String = "p") -> MemoryPackage {
        MemoryPackage(name: name, files: files.mapValues { Array($0.utf8) })
    }

    /// A small QTI 2.1 choice item worth `points`.
    static func choiceItem(_ id: String, points: Double = 1) -> String {
        """
        <assessmentItem identifier="\(id)"><responseDeclaration identifier="R" cardinality="single" baseType="identifier">
        <correctResponse><value>A</value></correctResponse></responseDeclaration>
        <outcomeDeclaration identifier="MAXSCORE" cardinality="single" baseType="float"><defaultValue><value>\(points)</value></defaultValue></outcomeDeclaration>
        <itemBody><choiceInteraction responseIdentifier="R" maxChoices="1"><prompt>Question \(id)?</prompt>
        <simpleChoice identifier="A">Yes</simpleChoice><simpleChoice identifier="B">No</simpleChoice>
        </choiceInteraction></itemBody></assessmentItem>
        """
    }

    static let slider = """
        <assessmentItem identifier="slide"><responseDeclaration identifier="R" cardinality="single" baseType="integer">
        <correctResponse><value>3</value></correctResponse></responseDeclaration>
        <itemBody><sliderInteraction responseIdentifier="R" lowerBound="0" upperBound="5"/></itemBody></assessmentItem>
        """

    func messages(_ bank: ImportedBank) -> [String] { bank.diagnostics.map(\.description) }

    @Test func aQTI21PackageWithATestKeepsItsSectionsPoolShuffleTimeAndNavigation() throws {
        let package = try Self.folder("test21")
        let bank = try QTIReader.readPackage(package, name: "test21")
        #expect(bank.title == "Geography quiz")
        #expect(bank.sections.map(\.title) == ["Warm-up", "Rivers, mountains, deserts and lakes"])
        #expect(bank.sections.map(\.draw) == [nil, 2])
        #expect(bank.sections.map { $0.questions.compactMap(\.name) } == [["capital", "ocean"], ["river", "mountain", "desert", "lake"]])
        #expect(bank.sections.first?.instructions == "Two questions to start.")
        #expect(bank.timeLimit == 1800)
        #expect(bank.navigation == .linear)
        #expect(bank.shuffleItems)
        // The unused island item stays out; the warm-up is shuffled with the pool.
        #expect(messages(bank) == [
            "test21/tests/geography.xml:13: warning: only some sections shuffle their items; Carrel shuffles the items of every section, so section “Warm-up” is shuffled too",
            "test21/imsmanifest.xml: warning: 1 item of the package is not in the test and left out",
        ])
        let a = try expectValidAssessment([bank])
        #expect(a.sections.map(\.draw) == [nil, 2])
        #expect(a.sections.map { $0.items.map(\.id) } == [["capital", "ocean"], ["river", "mountain", "desert", "lake"]])
        #expect(a.timeLimit == 1800)
        #expect(a.navigation == .linear)
        #expect(a.shuffle.items && !a.shuffle.choices)
        #expect(a.questionsPerSession == 4)
    }

    @Test func aZippedTestPackageImportsLikeItsFolder() throws {
        let package = try Self.folder("test21")
        let zip = try QTITests.zip(package.files.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        let bank = try QTIReader.read(bytes: zip, file: "test21.zip", folder: nil, path: nil)
        #expect(bank.sections.map(\.draw) == [nil, 2])
        #expect(bank.questions.count == 6)
        #expect(bank.diagnostics.last?.description == "test21.zip:imsmanifest.xml: warning: 1 item of the package is not in the test and left out")
    }

    @Test func aQTI30TestWhoseManifestListsNoItemsMergesHiddenSections() throws {
        let package = try Self.folder("test30")
        let bank = try QTIReader.readPackage(package, name: "test30")
        #expect(bank.title == "Science check")
        // “Waves” is hidden: its items join Physics, under Physics' title.
        #expect(bank.sections.map(\.title) == ["Physics", "Chemistry"])
        #expect(bank.sections.map { $0.questions.compactMap(\.name) } == [["gravity", "light", "sound"], ["water", "salt", "noble", "ph"]])
        #expect(bank.sections.map(\.draw) == [nil, 2])
        #expect(bank.timeLimit == 2700)
        #expect(bank.navigation == nil)
        #expect(bank.shuffleItems)
        #expect(messages(bank) == [
            "test30/test.xml:15: warning: only some sections shuffle their items; Carrel shuffles the items of every section, so section “Physics” is shuffled too",
        ])
        let a = try expectValidAssessment([bank])
        #expect(a.navigation == .free)
        #expect(a.shuffle.items)
        #expect(a.timeLimit == 45 * 60)
        #expect(a.questionsPerSession == 5)
        #expect(a.items.map(\.type) == Array(repeating: .choice, count: 7))
    }

    /// QTIWorks' “Web Developer” sample test (see Fixtures/README), named on its own next to its items.
    @Test func aRealWorldTestNamedDirectlyReadsTheItemsNextToIt() throws {
        let folder = try Self.folder("qtiworks-webdev")
        let bank = try QTIReader.read(bytes: try Fixtures.bytes("qtiworks-webdev/template_test1.xml"), file: "qtiworks-webdev/template_test1.xml",
                                      folder: folder, path: "template_test1.xml")
        #expect(bank.title == "Web Developer Website")
        #expect(bank.navigation == .linear)
        #expect(bank.timeLimit == nil)
        #expect(!bank.shuffleItems)
        #expect(bank.sections.map(\.title) == ["Electronics and Computer Science"])
        // Every item says identifier="choice"; the test's references name them apart.
        #expect(bank.questions.compactMap(\.name) == ["question1", "question2", "question3", "question4", "question5", "question6", "question7", "question8", "question9"])
        // Question 8's two inline choices are one gap-fill item; each gap's empty choice is left out.
        #expect(bank.types == [.choice, .choice, .choice, .choice, .multiple, .choice, .choice, .gaps, .multiple])
        #expect(messages(bank) == [
            "qtiworks-webdev/question4.xml: warning: missing asset directory.jpg (shown by the item)",
            "qtiworks-webdev/question8.xml:28: warning: gap 1: left out 1 empty choice",
            "qtiworks-webdev/question8.xml:33: warning: gap 2: left out 1 empty choice",
            "qtiworks-webdev/template_test1.xml:9: warning: itemSessionControl is not kept: attempts, review, skipping, feedback and solutions follow Carrel's own navigation and results settings",
            "qtiworks-webdev/template_test1.xml:24: warning: outcomeProcessing is not kept: Carrel's score is the sum of the items' points",
            "qtiworks-webdev/template_test1.xml:41: warning: testFeedback is not kept: Carrel shows no feedback of the test's own",
        ])
        let a = try expectValidAssessment([bank])
        #expect(a.items.map(\.id) == ["question1", "question2", "question3", "question4", "question5", "question6", "question7", "question8", "question9"])
        #expect(a.maximumPoints == 12)
    }

    @Test func whatCarrelDoesNotKeepIsNamedOncePerKindWithItsLine() throws {
        let test = """
            <assessmentTest identifier="t" title="Rules">
            <timeLimits minTime="60" maxTime="600"/>
            <testPart identifier="one" navigationMode="linear" submissionMode="simultaneous">
            <itemSessionControl maxAttempts="2"/>
            <preCondition><baseValue baseType="boolean">true</baseValue></preCondition>
            <assessmentSection identifier="s1" title="First" visible="true">
            <timeLimits maxTime="60"/>
            <assessmentItemRef identifier="a" href="a.xml"><weight identifier="W" value="2"/>
            <timeLimits maxTime="30"/></assessmentItemRef>
            <assessmentItemRef identifier="b" href="b.xml"><branchRule target="EXIT_TEST"><baseValue baseType="boolean">true</baseValue></branchRule></assessmentItemRef>
            </assessmentSection>
            </testPart>
            <testPart identifier="two" navigationMode="nonlinear" submissionMode="individual">
            <preCondition><baseValue baseType="boolean">true</baseValue></preCondition>
            <assessmentSection identifier="s2" title="Second" visible="true">
            <assessmentItemRef identifier="c" href="c.xml"/>
            </assessmentSection>
            </testPart>
            <outcomeProcessing/>
            </assessmentTest>
            """
        let files = Self.package(["t.xml": test, "a.xml": Self.choiceItem("a"), "b.xml": Self.choiceItem("b"), "c.xml": Self.choiceItem("c")])
        let bank = try QTIReader.read(bytes: Array(test.utf8), file: "p/t.xml", folder: files, path: "t.xml")
        #expect(bank.timeLimit == 600)
        #expect(bank.navigation == .linear)
        #expect(bank.sections.map(\.title) == ["First", "Second"])
        #expect(messages(bank) == [
            "p/t.xml:2: warning: minTime is not kept: Carrel lets students hand in at any time",
            "p/t.xml:13: warning: test part “two” is nonlinear but “one” is linear; Carrel's navigation is the whole test's, so all of it is linear",
            "p/t.xml:5: warning: preCondition (2 of them) is not kept: Carrel gives every section and item, whatever the answers so far",
            "p/t.xml:10: warning: branchRule is not kept: Carrel does not jump; students go through every section",
            "p/t.xml:4: warning: itemSessionControl is not kept: attempts, review, skipping, feedback and solutions follow Carrel's own navigation and results settings",
            "p/t.xml:19: warning: outcomeProcessing is not kept: Carrel's score is the sum of the items' points",
            "p/t.xml:8: warning: weight is not kept: each item is worth its own points",
            "p/t.xml:7: warning: timeLimits below the test (2 of them) is not kept: only the whole test's time limit is kept (time_limit); test parts, sections and items have none of their own",
        ])
        let a = try expectValidAssessment([bank])
        #expect(a.timeLimit == 600)
        #expect(a.navigation == .linear)
    }

    /// A test of one nonlinear part holding `body`, which starts on line 3.
    static func test(_ body: String) -> String {
        """
        <assessmentTest identifier="t" title="T">
        <testPart identifier="p" navigationMode="nonlinear" submissionMode="individual">
        \(body)
        </testPart>
        </assessmentTest>
        """
    }

    static func pool(select: String, extra: String = "", refs: [String]) -> String {
        test("""
            <assessmentSection identifier="pool" title="Pool" visible="true">
            <selection select="\(select)"\(extra)/>
            \(refs.map { "<assessmentItemRef identifier=\"\($0)\" href=\"\($0).xml\"/>" }.joined(separator: "\n"))
            </assessmentSection>
            """)
    }

    func readPool(_ test: String, items: [String: String]) throws -> ImportedBank {
        let files = Self.package(items.merging(["t.xml": test]) { a, _ in a })
        return try QTIReader.read(bytes: Array(test.utf8), file: "p/t.xml", folder: files, path: "t.xml")
    }

    @Test func aSelectionLargerThanItsSectionIsAnErrorNamingTheSectionAndItsLine() throws {
        let bank = try readPool(Self.pool(select: "3", refs: ["a", "b"]), items: ["a.xml": Self.choiceItem("a"), "b.xml": Self.choiceItem("b")])
        #expect(messages(bank) == ["p/t.xml:4: error: section “Pool” selects 3 items but holds only 2; every item of it is given"])
        #expect(bank.sections.map(\.draw) == [nil])
        #expect(bank.questions.count == 2)
        _ = try expectValidAssessment([bank])
    }

    @Test func sectionsNestedBeyondAnyRealTestAreLeftOut() throws {
        let levels = QTITestReader.maximumDepth + 10
        let open = (1...levels).map { #"<assessmentSection identifier="s\#($0)" title="S" visible="false">"# }.joined(separator: "\n")
        let close = String(repeating: "</assessmentSection>\n", count: levels)
        let test = Self.test(#"<assessmentItemRef identifier="a" href="a.xml"/>"# + "\n" + open + "\n" + #"<assessmentItemRef identifier="b" href="b.xml"/>"# + "\n" + close)
        let bank = try readPool(test, items: ["a.xml": Self.choiceItem("a"), "b.xml": Self.choiceItem("b")])
        let first = QTITestReader.maximumDepth + 1
        #expect(messages(bank) == ["p/t.xml:\(3 + first): error: sections nest deeper than \(QTITestReader.maximumDepth) levels; section “s\(first)” and what it holds are left out"])
        #expect(bank.questions.compactMap(\.name) == ["a"])
    }

    @Test(arguments: ["0", "two", "-1", ""])
    func aSelectThatIsNoCountIsAnError(select: String) throws {
        let bank = try readPool(Self.pool(select: select, refs: ["a", "b"]), items: ["a.xml": Self.choiceItem("a"), "b.xml": Self.choiceItem("b")])
        #expect(messages(bank) == ["p/t.xml:4: error: section “Pool” has select “\(select)”, which is not a number of items of at least 1; every item of it is given"])
        #expect(bank.sections.map(\.draw) == [nil])
    }

    @Test func drawingWithReplacementIsPointedOutAndDrawsWithout() throws {
        let bank = try readPool(Self.pool(select: "1", extra: #" withReplacement="true""#, refs: ["a", "b"]),
                                items: ["a.xml": Self.choiceItem("a"), "b.xml": Self.choiceItem("b")])
        #expect(messages(bank) == ["p/t.xml:4: warning: section “Pool” draws with replacement (an item may come twice); Carrel draws each item at most once"])
        #expect(bank.sections.map(\.draw) == [1])
        #expect(try expectValidAssessment([bank]).questionsPerSession == 1)
    }

    @Test func aPoolOfItemsWorthDifferentPointsIsPointedOut() throws {
        let bank = try readPool(Self.pool(select: "1", refs: ["a", "b"]),
                                items: ["a.xml": Self.choiceItem("a", points: 1), "b.xml": Self.choiceItem("b", points: 3)])
        #expect(messages(bank) == ["p/t.xml:4: warning: the items section “Pool” draws from are not worth the same points (1 to 3), so students can be given tests of different totals"])
        #expect(bank.sections.map(\.draw) == [1])
        _ = try expectValidAssessment([bank])
    }

    @Test func aPoolLeftWithNoMoreItemsThanItDrawsGivesThemAll() throws {
        let bank = try readPool(Self.pool(select: "2", refs: ["a", "slide", "b"]),
                                items: ["a.xml": Self.choiceItem("a"), "slide.xml": Self.slider, "b.xml": Self.choiceItem("b")])
        #expect(bank.skips.count == 1)
        #expect(bank.diagnostics.last?.description == "p/t.xml:4: warning: section “Pool” selects 2 of its 3 items, but only 2 could be imported; every one of them is given")
        #expect(bank.sections.map(\.draw) == [nil])
        // One fewer than it draws is still a pool.
        let kept = try readPool(Self.pool(select: "1", refs: ["a", "slide", "b"]),
                                items: ["a.xml": Self.choiceItem("a"), "slide.xml": Self.slider, "b.xml": Self.choiceItem("b")])
        #expect(kept.sections.map(\.draw) == [1])
    }

    @Test func aPoolThatLosesItemsToTheValidatorDrawsNoMoreThanItHas() throws {
        let good = ImportedQuestion(item: Item(id: "q", prompt: "Fine?", points: 1, kind: .trueFalse(answer: true)), file: "t.xml", line: 3, name: "good")
        let bad = ImportedQuestion(item: Item(id: "q", prompt: "Broken?", points: 1, kind: .choice(choices: ["same", "same"], answer: "same")),
                                   file: "t.xml", line: 4, name: "bad")
        let bank = ImportedBank(file: "t.xml", sections: [ImportedSection(title: "Pool", questions: [good, bad, good], draw: 2, file: "t.xml", line: 2)])
        let assembly = Importer.assemble([bank], options: .init(id: "x", title: "X"))
        let a = try #require(assembly.assessment)
        #expect(a.sections.map(\.draw) == [nil])
        #expect(a.items.count == 2)
        #expect(assembly.diagnostics.map(\.description).last == "t.xml:2: warning: section “Pool” draws 2 of its items, but only 2 passed validation; every one of them is given")
        #expect(assembly.diagnostics.count == 2)
    }

    @Test func aSelectionAmongSubSectionsIsNotAPool() throws {
        let test = Self.test("""
            <assessmentSection identifier="outer" title="Outer" visible="true">
            <selection select="1"/>
            <assessmentItemRef identifier="a" href="a.xml"/>
            <assessmentSection identifier="inner" title="Inner" visible="true">
            <assessmentItemRef identifier="b" href="b.xml"/>
            </assessmentSection>
            <assessmentItemRef identifier="c" href="c.xml"/>
            </assessmentSection>
            """)
        let bank = try readPool(test, items: ["a.xml": Self.choiceItem("a"), "b.xml": Self.choiceItem("b"), "c.xml": Self.choiceItem("c")])
        #expect(messages(bank) == ["p/t.xml:4: warning: section “Outer” selects among its sections (“inner” at line 6); Carrel draws only items, so every item of it is given"])
        // Items before and after a visible sub-section stay with their own section's title.
        #expect(bank.sections.map(\.title) == ["Outer", "Outer / Inner", "Outer"])
        #expect(bank.sections.map { $0.questions.compactMap(\.name) } == [["a"], ["b"], ["c"]])
        #expect(bank.sections.allSatisfy { $0.draw == nil })
    }

    @Test func aHiddenSectionThatDrawsStaysAPoolUnderItsParentsTitle() throws {
        let test = Self.test("""
            <assessmentSection identifier="top" title="Top" visible="true">
            <assessmentItemRef identifier="a" href="a.xml"/>
            <assessmentSection identifier="hidden" title="Not shown" visible="false">
            <selection select="1"/>
            <assessmentItemRef identifier="b" href="b.xml"/>
            <assessmentItemRef identifier="c" href="c.xml"/>
            </assessmentSection>
            </assessmentSection>
            <assessmentSection identifier="loose" title="Also not shown" visible="false">
            <assessmentItemRef identifier="d" href="d.xml"/>
            </assessmentSection>
            """)
        let items = Dictionary(uniqueKeysWithValues: ["a", "b", "c", "d"].map { ("\($0).xml", Self.choiceItem($0)) })
        let bank = try readPool(test, items: items)
        #expect(bank.diagnostics.isEmpty, "\(messages(bank))")
        #expect(bank.sections.map(\.title) == ["Top", "Top", nil])
        #expect(bank.sections.map(\.draw) == [nil, 1, nil])
        #expect(bank.sections.map { $0.questions.compactMap(\.name) } == [["a"], ["b", "c"], ["d"]])
        let a = try expectValidAssessment([bank])
        #expect(a.questionsPerSession == 3)
    }

    @Test func referencesLeavingThePackageAreRefusedAndMissingOnesNamed() throws {
        let test = Self.test("""
            <assessmentSection identifier="s" title="S" visible="true">
            <assessmentItemRef identifier="up" href="../../etc/passwd"/>
            <assessmentItemRef identifier="abs" href="/etc/passwd"/>
            <assessmentItemRef identifier="web" href="https://example.org/item.xml"/>
            <assessmentItemRef identifier="gone" href="items/gone.xml"/>
            <assessmentItemRef identifier="none"/>
            <assessmentItemRef identifier="a" href="items/../a.xml"/>
            <assessmentItemRef identifier="again" href="a.xml"/>
            <assessmentItemRef identifier="test" href="t.xml"/>
            </assessmentSection>
            """)
        let bank = try readPool(test, items: ["a.xml": Self.choiceItem("a")])
        #expect(messages(bank) == [
            "p/t.xml:4: error: the item reference “../../etc/passwd” leads outside the package; it is not followed, so it is left out",
            "p/t.xml:5: error: the item reference “/etc/passwd” leads outside the package; it is not followed, so it is left out",
            "p/t.xml:6: error: the item reference “https://example.org/item.xml” is a web address; only the package's own files are read, so it is left out",
            "p/t.xml:7: error: the item reference “items/gone.xml” names items/gone.xml, which is not in the package",
            "p/t.xml:8: error: the item reference “none” has no href; it is left out",
            "p/t.xml:10: warning: a.xml is referred to again (first at p/t.xml:9); it is given once",
            "p/t.xml:11: error: the item reference “t.xml” names a test, not an item; it is left out",
        ])
        #expect(bank.questions.compactMap(\.name) == ["a"])
    }

    @Test func aSectionInAFileOfItsOwnIsReadAndOneIncludingItselfIsNot() throws {
        let test = Self.test("""
            <assessmentSectionRef identifier="s" href="sections/s.xml"/>
            """)
        let section = """
            <assessmentSection identifier="s" title="From a file" visible="true">
            <selection select="1"/>
            <assessmentItemRef identifier="a" href="../a.xml"/>
            <assessmentItemRef identifier="b" href="../b.xml"/>
            <assessmentSectionRef identifier="loop" href="s.xml"/>
            <branchRule target="EXIT_TEST"/>
            </assessmentSection>
            """
        let bank = try readPool(test, items: ["sections/s.xml": section, "a.xml": Self.choiceItem("a"), "b.xml": Self.choiceItem("b")])
        #expect(messages(bank) == [
            "p/sections/s.xml:2: warning: section “From a file” selects among its sections (“loop” at line 5); Carrel draws only items, so every item of it is given",
            "p/sections/s.xml:5: error: the section reference “s.xml” includes a file that is already being read; it is left out",
            "p/sections/s.xml:6: warning: branchRule is not kept: Carrel does not jump; students go through every section",
        ])
        #expect(bank.sections.map(\.title) == ["From a file"])
        #expect(bank.questions.compactMap(\.name) == ["a", "b"])
        let notASection = try readPool(test, items: ["sections/s.xml": Self.choiceItem("x")])
        #expect(messages(notASection) == ["p/sections/s.xml:1: error: this file is referred to as a section, but its root element is <assessmentItem>, not <assessmentSection>"])
    }

    @Test(arguments: [
        ("0", "p/t.xml:1: warning: the test's maxTime “0” is not a number of seconds above zero; the test is imported untimed", nil),
        ("soon", "p/t.xml:1: warning: the test's maxTime “soon” is not a number of seconds above zero; the test is imported untimed", nil),
        ("1e12", "p/t.xml:1: warning: the test's maxTime of 1e12 seconds is longer than a week; the test is imported untimed", nil),
        ("36000", "p/t.xml:1: warning: the test's maxTime (10h) is longer than a session may last (policy.max_duration 8h); raise max_duration or the session ends first", 36000),
        ("89.5", nil, 90),
    ] as [(String, String?, Int?)])
    func theTestsMaxTimeIsItsTimeLimitWhenItIsOne(maxTime: String, message: String?, limit: Int?) throws {
        let test = """
            <assessmentTest identifier="t" title="Timed"><timeLimits maxTime="\(maxTime)"/>
            <testPart identifier="p" navigationMode="nonlinear" submissionMode="individual">
            <assessmentSection identifier="s" title="S" visible="true"><assessmentItemRef identifier="a" href="a.xml"/></assessmentSection>
            </testPart></assessmentTest>
            """
        let bank = try readPool(test, items: ["a.xml": Self.choiceItem("a")])
        #expect(messages(bank) == (message.map { [$0] } ?? []))
        #expect(bank.timeLimit == limit)
        #expect(try expectValidAssessment([bank]).timeLimit == limit)
    }

    @Test func aTestWithoutPartsGivesNothingAndSaysSo() throws {
        let bank = try readPool("<qti-assessment-test identifier='t' title='Empty'/>", items: [:])
        #expect(messages(bank) == ["p/t.xml:1: error: the test has no testPart, so it gives no items"])
        #expect(bank.sections.isEmpty)
    }

    @Test func aZipWithoutAManifestUsesItsTestAndLeavesTheOtherItemsOut() throws {
        let test = Self.pool(select: "1", refs: ["a", "b"])
        let zip = try QTITests.zip([("t.xml", Array(test.utf8)), ("a.xml", Array(Self.choiceItem("a").utf8)),
                                    ("b.xml", Array(Self.choiceItem("b").utf8)), ("c.xml", Array(Self.choiceItem("c").utf8)),
                                    ("d.xml", Array(Self.choiceItem("d").utf8))])
        let bank = try QTIReader.read(bytes: zip, file: "loose.zip", folder: nil, path: nil)
        #expect(messages(bank) == [
            "loose.zip: warning: the package has no imsmanifest.xml; its test t.xml is read",
            "loose.zip: warning: 2 items of the package are not in the test and left out",
        ])
        #expect(bank.sections.map(\.draw) == [1])
        #expect(bank.questions.compactMap(\.name) == ["a", "b"])
    }

    @Test func aManifestWithTwoTestsReadsTheFirstAndATestThatIsNotOneIsNamed() throws {
        let manifest = """
            <manifest><resources>
            <resource identifier="t1" type="imsqti_test_xmlv2p2" href="t1.xml"/>
            <resource identifier="t2" type="imsqti_test_xmlv2p1" href="t2.xml"/>
            <resource identifier="a" type="imsqti_item_xmlv2p2" href="a.xml"/>
            </resources></manifest>
            """
        let files = Self.package(["imsmanifest.xml": manifest, "t1.xml": Self.pool(select: "1", refs: ["a"]), "t2.xml": Self.pool(select: "1", refs: ["a"]),
                                  "a.xml": Self.choiceItem("a")])
        let bank = try QTIReader.readPackage(files, name: "p")
        #expect(messages(bank) == ["p/imsmanifest.xml: warning: the package holds 2 tests; only t1.xml is read (left out: t2.xml)"])
        #expect(bank.questions.count == 1)
        let wrong = Self.package(["imsmanifest.xml": manifest, "t1.xml": Self.choiceItem("x"), "a.xml": Self.choiceItem("a")])
        let refused = try QTIReader.readPackage(wrong, name: "p")
        #expect(messages(refused) == [
            "p/imsmanifest.xml: error: the manifest lists t2.xml, which is not in the package",
            "p/t1.xml:1: error: the manifest lists this file as a test, but its root element is <assessmentItem>, not <assessmentTest>",
        ])
    }

    @Test func sectionRubricsBecomeInstructionsAndProctorNotes() throws {
        let test = """
            <qti-assessment-test identifier="t" title="Rubrics">
            <qti-test-part identifier="p" navigation-mode="nonlinear" submission-mode="individual">
            <qti-assessment-section identifier="s" title="Reading" visible="true">
            <qti-rubric-block view="candidate"><qti-content-body><p>Read the text first.</p></qti-content-body></qti-rubric-block>
            <qti-rubric-block view="scorer"><qti-content-body><p>Accept British spellings.</p></qti-content-body></qti-rubric-block>
            <qti-assessment-item-ref identifier="a" href="a.xml"/>
            </qti-assessment-section>
            </qti-test-part>
            </qti-assessment-test>
            """
        let bank = try readPool(test, items: ["a.xml": Self.choiceItem("a")])
        #expect(bank.diagnostics.isEmpty, "\(messages(bank))")
        #expect(bank.sections.first?.instructions == "Read the text first.")
        #expect(bank.sections.first?.proctorNote == "Accept British spellings.")
        let a = try expectValidAssessment([bank])
        #expect(a.sections.first?.proctorNote == "Accept British spellings.")
    }
}
