# Format sources: encoding, sections, writer, reader (format-spec.md).
target_sources(gcsnap PRIVATE)
