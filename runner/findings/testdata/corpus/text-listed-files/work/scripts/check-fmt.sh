#!/bin/sh
files=$(gofmt -l .)
if [ -n "$files" ]; then
  echo "error: these files are not gofmt-ed:"
  echo "$files"
  exit 1
fi
