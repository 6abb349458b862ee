"""A worker's ratings without Flask: slot order and storage, behaviour record, page language, ratings read back."""
