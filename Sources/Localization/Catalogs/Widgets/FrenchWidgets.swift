extension French {
    static let widgets: [String: String] = [:]
}
