"""The imperative shell's input side: reading snapshots from files and from live clusters,
then freezing them into the immutable `Snapshot` (`freeze.py`)."""
