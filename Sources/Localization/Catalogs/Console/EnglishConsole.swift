extension English {
    static let console: [String] = [
    ]
}
