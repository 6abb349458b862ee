"""The dependency-free core every layer may import: shared enums, errors, tokenisation, HIT layout
constants and the shipped worker languages (standard library only; imports no other package of the project)."""
