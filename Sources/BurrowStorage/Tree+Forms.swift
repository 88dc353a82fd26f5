extension Tree {
    /// How many of this tree's leaves have each form: compact (file format 7), or the first form
    /// of older files, which a leaf keeps until a write copies it. Reads every branch and leaf.
    package func leafForms() throws(StorageError) -> (compact: Int, first: Int) {
        var forms = (compact: 0, first: 0)
        var pending = state.root == 0 ? [] : [state.root]
        while let number = pending.popLast() {
            let p = try snapshot.page(number)
            try BTree.checkTreePage(snapshot, p, number)
            if !PageHeader.isLeaf(p) {
                for i in 0..<PageHeader.count(p) { pending.append(PageHeader.child(p, i)) }
            } else if PageHeader.isCompact(p) {
                forms.compact += 1
            } else {
                forms.first += 1
            }
        }
        return forms
    }
}
