extension English {
    static let screens: [String] = [
    ]
}
