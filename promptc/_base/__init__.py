"""Leaf utilities every stage may use: errors, file reading, frozen data, memos, suggestions."""
