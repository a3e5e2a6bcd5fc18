fn main() {
    // Grammar lands with the syntax issue.
}
