"""The version of the JSON document ``dpverify check --json`` writes (see the README).

Its own module, of the standard library only, because the launcher writes that document before
the rest of the package has imported: a package that does not import is a failed gate."""

CHECK_SCHEMA = "dpverify.check/3"
