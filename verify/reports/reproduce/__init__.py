"""``dpverify reproduce PAPER``: one module per paper states its rows (``_gazeau``, ``_cks20``,
``_notes``, ``_typechecker``, ``_gtm``); ``_rows`` holds what they share and ``_run`` runs them.

Part of ``reports``: may import what ``reports`` may.
"""
