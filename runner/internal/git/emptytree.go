package git

// EmptyTree is the id of git's empty tree: where the changes of a
// repository without a commit begin.
const EmptyTree = emptyTree
