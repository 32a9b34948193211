import CGSISAL

/// Facts about ISA-L for `grandstand version`.
public enum ErasureCodingLibrary {
    /// ISA-L's version from the headers built against (2.30.0 on bookworm, 2.31.1 on trixie);
    /// the library offers no run-time query, and Debian's soname (libisal.so.2) pins the ABI.
    public static var isalVersion: String { "\(ISAL_MAJOR_VERSION).\(ISAL_MINOR_VERSION).\(ISAL_PATCH_VERSION)" }
}
