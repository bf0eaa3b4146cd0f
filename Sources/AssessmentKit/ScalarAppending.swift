extension String.UnicodeScalarView {
    /// Appends in place, scalar by scalar. The standard `append(contentsOf:)` of a scalar view
    /// builds a new string from the old one each time, so a text built by many such appends
    /// (one per entity, per gap, per tab) takes time growing with the square of its length.
    public mutating func appendEach<S: Sequence>(_ scalars: S) where S.Element == Unicode.Scalar {
        for scalar in scalars { append(scalar) }
    }
}
