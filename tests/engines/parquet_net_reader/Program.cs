// Read every *.parquet file under DIR with Parquet.Net and print one JSON line per file: its
// path, schema (column name and CLR type), row count, row groups, and per column the sum of
// its integer values (or the count of true booleans, or the total UTF-8 length of strings),
// so the test can compare them with gcsnap's own answers.
//   dotnet Gcsnap.ParquetNetReader.dll DIR
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Threading.Tasks;
using Parquet;
using Parquet.Schema;

static class Program {
  static async Task<int> Main(string[] args) {
    if (args.Length != 1) {
      Console.Error.WriteLine("usage: Gcsnap.ParquetNetReader DIR");
      return 2;
    }
    var files = Directory.GetFiles(args[0], "*.parquet", SearchOption.AllDirectories).OrderBy(f => f, StringComparer.Ordinal);
    foreach (string file in files) {
      using Stream stream = File.OpenRead(file);
      await using ParquetReader reader = await ParquetReader.CreateAsync(stream);
      DataField[] fields = reader.Schema.GetDataFields();
      var sums = new Dictionary<string, decimal>();
      long rows = 0;
      for (int g = 0; g < reader.RowGroupCount; ++g) {
        using ParquetRowGroupReader group = reader.OpenRowGroupReader(g);
        int n = checked((int)group.RowCount);
        rows += n;
        foreach (DataField field in fields)
          sums[field.Name] = sums.GetValueOrDefault(field.Name) + await SumColumn(file, group, field, n);
      }
      Console.WriteLine(JsonSerializer.Serialize(new {
        file = Path.GetRelativePath(args[0], file),
        rows,
        row_groups = reader.RowGroupCount,
        schema = fields.Select(f => new { name = f.Name, type = f.ClrType.Name }).ToArray(),
        sums = sums.ToDictionary(kv => kv.Key, kv => kv.Value.ToString(System.Globalization.CultureInfo.InvariantCulture)),
        version = reader.CustomMetadata.GetValueOrDefault("gcsnap.schema_version"),
      }));
    }
    return 0;
  }

  // The sum of an integer column, the count of true booleans or timestamps, the UTF-8 bytes of
  // strings: enough to compare every value read with what gcsnap wrote.
  static async Task<decimal> SumColumn(string file, ParquetRowGroupReader group, DataField field, int n) {
    decimal sum = 0;
    if (field.ClrType == typeof(long)) {
      var values = new long[n];
      await group.ReadAsync<long>(field, values);
      foreach (long v in values) sum += v;
    } else if (field.ClrType == typeof(int)) {
      var values = new int[n];
      await group.ReadAsync<int>(field, values);
      foreach (int v in values) sum += v;
    } else if (field.ClrType == typeof(bool)) {
      var values = new bool[n];
      await group.ReadAsync<bool>(field, values);
      foreach (bool v in values) sum += v ? 1 : 0;
    } else if (field.ClrType == typeof(DateTime)) {
      var values = new DateTime[n];
      await group.ReadAsync<DateTime>(field, values);
      foreach (DateTime v in values) sum += v.Year >= 2000 ? 1 : 0;
    } else if (field.ClrType == typeof(string) || field.ClrType == typeof(ReadOnlyMemory<char>)) {
      var values = new string[n];
      await group.ReadAsync(field, values);
      foreach (string v in values) sum += Encoding.UTF8.GetByteCount(v);
    } else {
      throw new InvalidDataException($"{file}: column {field.Name} has the unexpected type {field.ClrType}");
    }
    return sum;
  }
}
