#!/bin/sh
files=$(grep -l "  " *.txt)
if [ -n "$files" ]; then
  echo "error: these files hold double blanks:"
  echo "$files"
  exit 1
fi
