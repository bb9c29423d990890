"""Chapter A7's lab apps (plain state for tests, an ipywidgets layer for labs/a7/).

``children``   A7·1/A7·2/A7·3: send one child agent offline (a pretend model), look at the files and the ledger
"""
