extension English {
    static let widgets: [String] = [
    ]
}
