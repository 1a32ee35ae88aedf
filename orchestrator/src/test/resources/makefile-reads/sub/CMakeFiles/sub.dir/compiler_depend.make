# Empty compiler generated dependencies file for sub.
# This may be replaced when dependencies are built.
