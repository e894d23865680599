# Write gcsnap's .NET tool packages (cmake -P; scripts/package.sh runs it):
#   <OUT_DIR>/gcsnap.<rid>.<VERSION>.nupkg for each RID: the native gcsnap and its profiler
#     library in tools/net10.0/<rid>/, with a DotnetToolSettings.xml whose command runs gcsnap
#     itself (Runner="executable"): `dotnet tool install` links the command to the executable,
#     so no .NET runtime starts in front of `gcsnap` (docs/install.md ".NET tool").
#   <OUT_DIR>/gcsnap.<VERSION>.nupkg: the package users name, which only points the .NET 10 SDK
#     at the package of their runtime identifier (RuntimeIdentifierPackages).
# Arguments (-D): VERSION, OUT_DIR, WORK_DIR, README, LICENSE_EXPRESSION, DESCRIPTION, and
# RIDS, a list of "rid=directory" where directory holds the RID's executable and library
# (linux: gcsnap, libgcsnap_profiler.so; windows: gcsnap.exe, gcsnap_profiler.dll).
cmake_minimum_required(VERSION 3.20)
foreach(arg VERSION OUT_DIR WORK_DIR README LICENSE_EXPRESSION DESCRIPTION RIDS)
  if(NOT DEFINED ${arg} OR "${${arg}}" STREQUAL "")
    message(FATAL_ERROR "GcsnapNuget.cmake: -D${arg}=... is missing")
  endif()
endforeach()

set(framework net10.0)

# write_nuspec(DIR ID PACKAGE_TYPE): DIR/ID.nuspec with the metadata both packages share.
function(write_nuspec dir id package_type)
  file(WRITE ${dir}/${id}.nuspec "<?xml version=\"1.0\" encoding=\"utf-8\"?>
<package xmlns=\"http://schemas.microsoft.com/packaging/2012/06/nuspec.xsd\">
  <metadata>
    <id>${id}</id>
    <version>${VERSION}</version>
    <authors>gcsnap</authors>
    <license type=\"expression\">${LICENSE_EXPRESSION}</license>
    <readme>README.md</readme>
    <description>${DESCRIPTION}</description>
    <tags>dotnet diagnostics gc heap memory leak profiler</tags>
    <packageTypes>
      <packageType name=\"${package_type}\" />
    </packageTypes>
  </metadata>
</package>
")
  file(COPY ${README} DESTINATION ${dir})
  file(WRITE ${dir}/_rels/.rels "<?xml version=\"1.0\" encoding=\"utf-8\"?>
<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">
  <Relationship Type=\"http://schemas.microsoft.com/packaging/2010/07/manifest\" Target=\"/${id}.nuspec\" Id=\"R0\" />
</Relationships>
")
endfunction()

# write_content_types(DIR OVERRIDES...): [Content_Types].xml; OVERRIDES name the parts that
# have no extension (the Linux executable).
function(write_content_types dir)
  set(text "<?xml version=\"1.0\" encoding=\"utf-8\"?>
<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">
  <Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\" />
")
  foreach(ext nuspec xml md so dll exe)
    string(APPEND text "  <Default Extension=\"${ext}\" ContentType=\"application/octet\" />\n")
  endforeach()
  foreach(part ${ARGN})
    string(APPEND text "  <Override PartName=\"/${part}\" ContentType=\"application/octet\" />\n")
  endforeach()
  string(APPEND text "</Types>\n")
  file(WRITE "${dir}/[Content_Types].xml" "${text}")
endfunction()

# zip_package(DIR FILE): FILE, a zip of everything in DIR with paths relative to DIR.
function(zip_package dir file)
  file(GLOB_RECURSE parts RELATIVE ${dir} ${dir}/*)
  list(SORT parts)
  file(REMOVE ${file})
  execute_process(COMMAND ${CMAKE_COMMAND} -E tar cf ${file} --format=zip -- ${parts}
                  WORKING_DIRECTORY ${dir} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "GcsnapNuget.cmake: zipping ${file} failed: ${rc}")
  endif()
  message(STATUS "wrote ${file}")
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${OUT_DIR})
set(pointers "")
foreach(pair ${RIDS})
  string(REGEX MATCH "^([^=]+)=(.+)$" ok "${pair}")
  if(NOT ok)
    message(FATAL_ERROR "GcsnapNuget.cmake: RIDS entry '${pair}' is not rid=directory")
  endif()
  set(rid ${CMAKE_MATCH_1})
  set(from ${CMAKE_MATCH_2})
  if(rid MATCHES "^win")
    set(exe gcsnap.exe)
    set(lib gcsnap_profiler.dll)
  else()
    set(exe gcsnap)
    set(lib libgcsnap_profiler.so)
  endif()
  foreach(f ${exe} ${lib})
    if(NOT EXISTS ${from}/${f})
      message(FATAL_ERROR "GcsnapNuget.cmake: ${from}/${f} does not exist")
    endif()
  endforeach()
  set(id gcsnap.${rid})
  set(dir ${WORK_DIR}/${id})
  set(tools tools/${framework}/${rid})
  file(COPY ${from}/${exe} ${from}/${lib} DESTINATION ${dir}/${tools})
  file(WRITE ${dir}/${tools}/DotnetToolSettings.xml "<?xml version=\"1.0\" encoding=\"utf-8\"?>
<DotNetCliTool Version=\"2\">
  <Commands>
    <Command Name=\"gcsnap\" EntryPoint=\"${exe}\" Runner=\"executable\" />
  </Commands>
</DotNetCliTool>
")
  write_nuspec(${dir} ${id} DotnetToolRidPackage)
  if(exe STREQUAL "gcsnap")
    write_content_types(${dir} ${tools}/${exe})
  else()
    write_content_types(${dir})
  endif()
  zip_package(${dir} ${OUT_DIR}/${id}.${VERSION}.nupkg)
  string(APPEND pointers "    <RuntimeIdentifierPackage RuntimeIdentifier=\"${rid}\" Id=\"${id}\" />\n")
endforeach()

set(dir ${WORK_DIR}/gcsnap)
file(WRITE ${dir}/tools/any/any/DotnetToolSettings.xml "<?xml version=\"1.0\" encoding=\"utf-8\"?>
<DotNetCliTool Version=\"2\">
  <Commands>
    <Command Name=\"gcsnap\" />
  </Commands>
  <RuntimeIdentifierPackages>
${pointers}  </RuntimeIdentifierPackages>
</DotNetCliTool>
")
write_nuspec(${dir} gcsnap DotnetTool)
write_content_types(${dir})
zip_package(${dir} ${OUT_DIR}/gcsnap.${VERSION}.nupkg)
