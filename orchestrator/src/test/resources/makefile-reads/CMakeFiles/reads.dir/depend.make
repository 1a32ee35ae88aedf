# Empty dependencies file for reads.
# This may be replaced when dependencies are built.
