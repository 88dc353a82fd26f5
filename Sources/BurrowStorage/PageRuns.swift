/// What a handle remembers from one commit to the next about placing their pages in runs of
/// consecutive pages (`WriteTransaction.takePageInRun`). Kept in `CommitState`, read when a
/// transaction begins and updated when a commit is published, under the commit state's lock.
struct PageRuns {
    /// The pages the latest commit placed in its run: how many the next one expects to place.
    private(set) var lastRunPages = 0
    /// Whether the latest commit freed two or more consecutive pages: a run written earlier came
    /// back as a run, so runs keep themselves in this workload.
    private(set) var lastFreedRun = false
    /// The version of the latest commit that started its run at the end of the file.
    private(set) var lastGrowth: UInt64 = 0
    /// Commits that started their run at the end of the file since the handle opened (for tests).
    private(set) var growths = 0

    /// Commits from one run started at the end of the file to the next, while runs come back
    /// as runs (`lastFreedRun`), and while they do not. Where runs keep themselves a new one is
    /// seldom needed. Where they cannot (one-put commits of random keys: the leaf a run holds
    /// stays behind when the root is freed), starting one at every commit kept about 32 free
    /// pages in the file, which every commit then moved through its pool and back into the free
    /// list: 8.7% more instructions per `.normal` commit in the storage benchmark, for nothing.
    static let growthInterval: UInt64 = 16
    static let growthIntervalWithoutReuse: UInt64 = 256

    /// Whether a transaction starting from `base` may start its run at the end of the file
    /// rather than in scattered free pages: only while the file's free pages (those held back
    /// for a sync round included) are few (`growthLimit`), so that a workload that leaves holes
    /// all over the file reuses them instead of growing the file by a run per commit, and only
    /// once in a number of commits. Once free pages are more than `growthLimit`, commits take
    /// them, scattered or not, and the file grows no further than that.
    func mayGrow(from base: Meta) -> Bool {
        let interval = lastFreedRun ? Self.growthInterval : Self.growthIntervalWithoutReuse
        return base.freePageCount <= Self.growthLimit(pageCount: base.pageCount) && base.version >= lastGrowth &+ interval
    }

    /// The most free pages a file may have for a transaction to start a run at its end: a
    /// sixty-fourth of the file, at least 32 pages (128 KiB at 4 KiB pages). In the objects
    /// benchmark's `commit_full` fewer (16) left most commits in two or three runs: a commit
    /// copies a random leaf of the `name` index, which stays where the run put it after the
    /// others are freed, so runs of four free pages need some slack to form.
    static func growthLimit(pageCount: PageNumber) -> UInt64 {
        max(32, UInt64(pageCount) / 64)
    }

    /// Records a published commit of `version`: the pages it placed in its run, whether it
    /// started the run at the end of the file, and the pages it freed (in ascending order).
    mutating func record(version: UInt64, runPages: Int, grew: Bool, freed: [PageNumber]) {
        lastRunPages = runPages
        lastFreedRun = zip(freed, freed.dropFirst()).contains { $0 &+ 1 == $1 }
        if grew {
            lastGrowth = version
            growths += 1
        }
    }
}
