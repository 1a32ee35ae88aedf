sub/CMakeFiles/sub.dir/s.cpp.o: /projects/reads/proj/sub/s.cpp \
 /usr/include/stdc-predef.h /projects/reads/outside/outside.h
