// Package installer holds no code: its folder has the packaging files (nfpm
// for .deb and .rpm, the NSIS script for Windows, the macOS bundle's
// Info.plist and notes) and its tests build the packages with
// scripts/package.sh and install the .deb into a throwaway root.
package installer
